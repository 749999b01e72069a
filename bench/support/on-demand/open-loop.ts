import { sleep } from '../../../test/cluster/support/cluster';
import { CpuMeter } from '../cpu-meter';
import { sqlTimingDiff, type SqlTiming } from '../sql-timing';
import { UNANSWERED, type OnDemandTarget, type Outcome, type WorkItem } from './target';

/**
 * The on-demand benchmark's load: open loop. Submissions leave on a fixed schedule (item i of a
 * step at i / rate seconds), whether or not earlier ones were answered — a closed loop (send,
 * wait, send) slows down with the system and hides the queue a real producer builds. Each
 * submission's time is Date.now() right before it is handed to the client; the handler's start
 * comes from the system's own worker records. A step stops sending early once it is clearly
 * saturated (its backlog at the recent start rate, or its oldest waiting submission, beyond
 * `maxBacklogS`), then drains: it waits, at most `drainS`, for every answer and every accepted
 * submission's start.
 */

export interface StepSpec {
  /** Submissions per second offered (in batched form: items per second, `batch` a call). */
  rate: number;
  seconds: number;
  /** Items per call: 1 for single submissions. */
  batch: number;
  /** Single submissions through the system's client library, which may send them together (Baton: BatonClient.submit). */
  viaClient?: boolean;
  /** Events rather than runs (Baton: POST /api/events, `batch` events a call; with viaClient, BatonClient.emit), each starting one run. */
  viaEvents?: boolean;
  /** The backlog beyond which a step stops sending (s). */
  maxBacklogS: number;
  /** How long after the last send a step waits for answers and starts (s). */
  drainS: number;
  /** A fault the step injects once, when half its calls have left (`--kill`); its description is logged. */
  midway?: () => Promise<string>;
}

export interface Sent {
  item: WorkItem;
  /** When the schedule said it should leave (epoch ms). */
  scheduledAt: number;
  /** Date.now() right before the client was handed it. */
  sentAt: number;
  answeredAt: number | null;
  outcome: Outcome | null;
}

export interface StepRun {
  spec: StepSpec;
  /** The step's key prefix (`s3`): its submissions are `s3-0`, `s3-1`, … */
  id: string;
  sends: Sent[];
  /** Why sending stopped before `seconds` (null: it did not). */
  stoppedEarly: string | null;
  /** What the step's midway fault did (null: none). */
  fault: string | null;
  /** First send → last send, ms. */
  sendMs: number;
  /** The end of the drain (epoch ms): a start after it is late, not counted in the step's figures. */
  drainEndAt: number;
  /** Worst delay of a send behind its schedule (the load generator's own lag), ms. */
  clientLagMs: number;
  /** CPU seconds over the step (first send → end of the drain), per process; `client` is this process (the load generator). */
  cpuSec: Record<string, number>;
  /** Times each system process went to sleep over the step (CpuMeter.slept). */
  sleeps: Record<string, number>;
  /** The store's statement counters over the same window (null: the system gives none). */
  storeCounters: Record<string, number> | null;
  /** Each process's statements over the same window, by digest (null: not timed). */
  sqlTiming: Record<string, SqlTiming> | null;
  windowMs: number;
}

/** Every handler start seen so far, by submission key: the first start's time, and how many. */
export class StartBook {
  private readonly firstAt = new Map<string, number>();
  private readonly count = new Map<string, number>();
  private readonly startedByStep = new Map<string, number>();

  async pull(target: OnDemandTarget): Promise<void> {
    for (const s of await target.newStarts()) {
      const n = (this.count.get(s.k) ?? 0) + 1;
      this.count.set(s.k, n);
      const first = this.firstAt.get(s.k);
      if (first === undefined) {
        const step = stepOf(s.k);
        this.startedByStep.set(step, (this.startedByStep.get(step) ?? 0) + 1);
      }
      if (first === undefined || s.at < first) this.firstAt.set(s.k, s.at);
    }
  }

  first(key: string): number | undefined {
    return this.firstAt.get(key);
  }

  starts(key: string): number {
    return this.count.get(key) ?? 0;
  }

  startedOf(stepId: string): number {
    return this.startedByStep.get(stepId) ?? 0;
  }
}

const stepOf = (key: string) => key.slice(0, key.lastIndexOf('-'));

const MONITOR_MS = 250;
/** The window of the recent start rate the backlog is measured at (ms). */
const RATE_WINDOW_MS = 5_000;
/** No saturation verdict before this much of a step has run (ms): the rate needs a window. */
const MIN_VERDICT_MS = 3_000;
/** The backlog must stay beyond the bound this long (ms): a stall of a few seconds on a shared machine is not saturation. */
const VERDICT_HOLD_MS = 3_000;

/** What the saturation check keeps between its calls in a step. */
interface Watch {
  samples: Array<{ at: number; started: number }>;
  /** Since when the backlog has been beyond the bound (null: it is not). */
  overSince: number | null;
}

export async function runStep(target: OnDemandTarget, book: StartBook, spec: StepSpec, id: string, tasks: number): Promise<StepRun> {
  const total = Math.max(1, Math.round(spec.rate * spec.seconds));
  const calls = Math.ceil(total / spec.batch);
  const sends: Sent[] = [];
  const counters0 = (await target.storeCounters?.()) ?? null;
  const timing0 = (await target.sqlTiming?.()) ?? null;
  const meter = new CpuMeter(target.pids);
  const client0 = process.cpuUsage();
  const t0 = Date.now();
  let clientLagMs = 0;
  let stoppedEarly: string | null = null;
  const watch: Watch = { samples: [], overSince: null };
  let nextCheck = t0 + MONITOR_MS;
  let call = 0;
  let fault: Promise<string> | null = null;
  while (call < calls && !stoppedEarly) {
    if (spec.midway && !fault && call >= calls / 2) fault = spec.midway();
    // Every call whose time has come leaves now: a late tick sends the ones it owes at once.
    const due = Math.min(calls, Math.floor(((Date.now() - t0) * spec.rate) / spec.batch / 1000) + 1);
    for (; call < due; call++) {
      const scheduledAt = t0 + (call * spec.batch * 1000) / spec.rate;
      const items = Array.from({ length: Math.min(spec.batch, total - call * spec.batch) }, (_, j): WorkItem => {
        const i = call * spec.batch + j;
        return { key: `${id}-${i}`, task: i % tasks };
      });
      const sentAt = Date.now();
      clientLagMs = Math.max(clientLagMs, sentAt - scheduledAt);
      const batch = items.map((item): Sent => ({ item, scheduledAt, sentAt, answeredAt: null, outcome: null }));
      sends.push(...batch);
      const answered = (outcomes: Outcome[]) => {
        const at = Date.now();
        batch.forEach((s, j) => {
          if (s.outcome) return; // given up on at the end of the drain
          s.answeredAt = at;
          s.outcome = outcomes[j] ?? { ok: false, error: 'no outcome for this item' };
        });
      };
      if (spec.viaClient && spec.viaEvents) void target.emitViaClient!(items[0]).then((o) => answered([o]));
      else if (spec.viaClient) void target.submitViaClient!(items[0]).then((o) => answered([o]));
      else if (spec.viaEvents) void target.emitEvents!(items).then(answered, (err: Error) => answered(items.map(() => ({ ok: false, error: err.message }))));
      else if (spec.batch === 1) void target.submit(items[0]).then((o) => answered([o]));
      else void target.submitBatch!(items).then(answered, (err: Error) => answered(items.map(() => ({ ok: false, error: err.message }))));
    }
    if (Date.now() >= nextCheck) {
      nextCheck = Date.now() + MONITOR_MS;
      await book.pull(target);
      stoppedEarly = saturation(sends, book, id, watch, spec, t0);
    }
    await sleep(1);
  }
  const faultNote = fault ? await fault.catch((err: Error) => `the fault failed: ${err.message}`) : null;
  const sendEnd = sends.length ? sends[sends.length - 1].sentAt : t0;
  const drainDeadline = Date.now() + spec.drainS * 1000;
  for (;;) {
    await book.pull(target);
    const waiting = sends.some((s) => s.outcome === null || (s.outcome.ok && book.first(s.item.key) === undefined));
    if (!waiting || Date.now() > drainDeadline) break;
    await sleep(MONITOR_MS);
  }
  target.abandonPending();
  const drainEndAt = Date.now();
  for (const s of sends) if (s.outcome === null) s.outcome = { ok: false, error: UNANSWERED };
  const client = process.cpuUsage(client0);
  const cpuSec = { ...meter.used(), client: +((client.user + client.system) / 1e6).toFixed(2) };
  const sleeps = meter.slept();
  const counters1 = counters0 && ((await target.storeCounters?.()) ?? null);
  const timing1 = timing0 && ((await target.sqlTiming?.()) ?? null);
  return {
    spec,
    id,
    sends,
    stoppedEarly,
    fault: faultNote,
    sendMs: sendEnd - t0,
    drainEndAt,
    clientLagMs: Math.round(clientLagMs),
    cpuSec,
    sleeps,
    storeCounters: counters0 && counters1 ? Object.fromEntries(Object.keys(counters1).map((k) => [k, counters1[k] - (counters0[k] ?? 0)])) : null,
    sqlTiming: timing0 && timing1 ? Object.fromEntries(Object.entries(timing1).map(([name, t]) => [name, sqlTimingDiff(t, timing0[name] ?? {})])) : null,
    windowMs: drainEndAt - t0,
  };
}

/**
 * Why the step should stop sending now, or null: its backlog at the recent start rate beyond the
 * bound for VERDICT_HOLD_MS, or its oldest waiting submission waiting longer than the bound.
 */
function saturation(sends: readonly Sent[], book: StartBook, id: string, watch: Watch, spec: StepSpec, t0: number): string | null {
  const now = Date.now();
  const started = book.startedOf(id);
  const { samples } = watch;
  samples.push({ at: now, started });
  while (samples.length > 1 && samples[0].at < now - RATE_WINDOW_MS) samples.shift();
  if (now - t0 < MIN_VERDICT_MS) return null;
  const at = `saturated at ${((now - t0) / 1000).toFixed(1)} s`;
  const oldest = sends.find((s) => !(s.outcome && !s.outcome.ok) && book.first(s.item.key) === undefined);
  if (oldest && now - oldest.sentAt > spec.maxBacklogS * 1000) return `${at}: a submission waiting ${((now - oldest.sentAt) / 1000).toFixed(0)} s`;
  const refused = sends.reduce((n, s) => n + (s.outcome && !s.outcome.ok ? 1 : 0), 0);
  const waiting = sends.length - started - refused;
  const rate = (started - samples[0].started) / Math.max(0.001, (now - samples[0].at) / 1000);
  const backlogS = waiting / Math.max(rate, 1);
  if (backlogS <= spec.maxBacklogS) {
    watch.overSince = null;
    return null;
  }
  watch.overSince ??= now;
  return now - watch.overSince >= VERDICT_HOLD_MS ? `${at}: ${waiting} waiting at ${rate.toFixed(0)} starts/s (backlog ${backlogS.toFixed(0)} s)` : null;
}

/**
 * After a system's last step: waits until every accepted submission of `steps` started, or
 * nothing started for `quietMs`, or `maxMs` passed — what never starts by then is lost for good,
 * not merely late.
 */
export async function settle(target: OnDemandTarget, book: StartBook, steps: readonly StepRun[], options: { quietMs: number; maxMs: number }): Promise<void> {
  const deadline = Date.now() + options.maxMs;
  let waitingBefore = Infinity;
  let movedAt = Date.now();
  for (;;) {
    await book.pull(target);
    const waiting = steps.reduce((n, st) => n + st.sends.filter((s) => s.outcome?.ok && book.first(s.item.key) === undefined).length, 0);
    if (waiting === 0 || Date.now() > deadline) return;
    if (waiting < waitingBefore) {
      waitingBefore = waiting;
      movedAt = Date.now();
    }
    if (Date.now() - movedAt > options.quietMs) return;
    await sleep(MONITOR_MS);
  }
}
