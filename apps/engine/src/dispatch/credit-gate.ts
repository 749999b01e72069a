import type { Clock } from '@baton/domain';
import type { ClaimedRun } from '../common/claimed-run';
import { ExecutorCredits, PROBE_MAX_MS, PROBE_MIN_MS, type CreditAnswer } from '../executors/executor-credits';
import type { RoutedExecutor } from '../executors/executor-registry';
import { HeldBackLines } from './held-back-lines';
import { ON_TIME_WINDOW_MS } from './ready-line';
import { taskKey, TenantTally } from './tenant-tally';

/**
 * Holds back the runs no executor has room for (ExecutorCredits), instead of sending them to be
 * refused with 429 — each refusal a failed dispatch and a RETRY_WAIT write (issue 11: 750 of
 * them in one 4,000-run burst on the SDK's defaults). A run held back waits here, per (tenant,
 * executor app), in its task's line (HeldBackLines: the tasks take the room in turn), in the order
 * of the instants the runs are due at — a run due now before runs sent ahead for later (a run
 * becomes sendable up to BATON_SEND_AHEAD_MS before its instant, so in the order they were held
 * back, a manual trigger waited behind a burst's runs due seconds later: p50 1.7 s, issue 44) —
 * still CLAIMED and leased by this node, and goes back to the due
 * queue (`resume`) when room appears: a 202 or a run's outcome callback reporting credit, a
 * probe's turn, or the instant of a run sent ahead that was held back only for the places kept
 * for runs due now. The lines are per tenant: one tenant's early runs never stand before another's.
 *
 * A run sent ahead leaves free a part of each executor's places for runs due now
 * (ExecutorCredits.kept: its workers' worth): a burst sent ahead filled every place, and a manual
 * trigger during it waited for a probe or the burst's first outcomes — 3 s at p50 (issue 44).
 */
export class CreditGate {
  private readonly credits: ExecutorCredits;
  private readonly waiting = new Map<string, HeldBackLines>();
  private readonly appOf = new Map<number, string>();
  /** Each executor's workers and queue places (its heartbeat's): what its kept places are reckoned from. */
  private readonly shapeOf = new Map<number, { workers: number; queueLimit: number }>();
  /** Each app's probe timer (the clock's: a test's ManualClock fires it as it moves) and when it is due. */
  private readonly timers = new Map<string, { cancel: () => void; at: number }>();
  /** Runs sent back to the queue by a wake and not admitted or held back since. */
  private readonly woken = new Set<number>();
  /** The runs in `waiting`, by id (holds). */
  private readonly heldIds = new Map<number, number>();
  private readonly tally = new TenantTally();
  /** The same by task (taskKey). */
  private readonly taskTally = new TenantTally();
  private resume: (run: ClaimedRun) => void = () => undefined;

  constructor(
    private readonly clock: Clock,
    /** Engines sending to the same executors, this one included: each takes its share of their room. */
    sharers: () => number = () => 1,
  ) {
    this.credits = new ExecutorCredits(sharers);
  }

  /** Where a run woken by room goes (the due queue, which sends it through admit again). */
  onResume(listener: (run: ClaimedRun) => void): void {
    this.resume = listener;
  }

  /** Runs held back, all apps. */
  get held(): number {
    let n = 0;
    for (const lines of this.waiting.values()) n += lines.size;
    return n;
  }

  /** Runs of one tenant held back. */
  heldOf(tenantId: string): number {
    return this.tally.of(tenantId);
  }

  /** Runs of one task of the tenant held back. */
  heldOfTask(tenantId: string, taskId: number): number {
    return this.taskTally.of(taskKey(tenantId, taskId));
  }

  /** Whether this run (this attempt of it, when given) is held back here. */
  holds(runId: number, attempt?: number): boolean {
    const held = this.heldIds.get(runId);
    return held !== undefined && (attempt === undefined || held === attempt);
  }

  /**
   * The candidates with room for `run`, in their order, the first one's room reserved at once
   * (the caller writes DISPATCHED before it sends: other runs admitted meanwhile must see the
   * room taken) — the caller answers for it, `answered(first, …)`, sent or not. None: the run is
   * held back here, and the caller lets it go.
   */
  admit(run: ClaimedRun, candidates: readonly RoutedExecutor[]): RoutedExecutor[] {
    const app = appKey(run);
    const now = this.clock.now();
    const ahead = !dueNow(run, now);
    for (const c of candidates) {
      this.appOf.set(c.executorId, app);
      this.shapeOf.set(c.executorId, { workers: c.capacity, queueLimit: c.queueLimit });
    }
    const open = candidates.filter((c) => this.credits.maySend(c.executorId, heartbeatRoom(c), now, ahead ? this.kept(c.executorId) : 0));
    if (open.length === 0) {
      this.holdBack(app, run);
      return [];
    }
    this.woken.delete(run.runId);
    this.credits.sent(open[0].executorId);
    return open;
  }

  /**
   * Executors for `count` runs due now among `candidates`: each in its turn (their order) takes a
   * run while its room goes (ExecutorCredits.balance), as admitting the runs one by one would
   * spread them; null when their room is less. Reserves nothing: admit reserves each run's room
   * as it is sent (DirectStarts: runs written already sent).
   */
  places(candidates: readonly RoutedExecutor[], count: number): number[] | null {
    const left = candidates.map((c) => Math.max(0, this.credits.balance(c.executorId, heartbeatRoom(c))));
    if (left.reduce((a, b) => a + b, 0) < count) return null;
    const chosen: number[] = [];
    for (let k = 0; chosen.length < count; k = (k + 1) % candidates.length) {
      if (left[k] === 0) continue;
      left[k]--;
      chosen.push(candidates[k].executorId);
    }
    return chosen;
  }

  /** A dispatch request is leaving for `executorId` (not the first candidate: admit reserved that one). */
  sent(executorId: number): void {
    this.credits.sent(executorId);
  }

  /** Its answer came; room reported wakes as many held-back runs, and a refusal sets the next probe's turn. */
  answered(executorId: number, answer: CreditAnswer): void {
    this.credits.answered(executorId, answer, this.clock.now());
    const app = this.appOf.get(executorId);
    if (app === undefined) return;
    if (answer.kind === 'ACCEPTED') this.wakeApp(app, answer.credit === undefined ? Infinity : this.credits.balance(executorId, 0), this.kept(executorId));
    this.arm(app);
  }

  /** A run that executor held has ended (its callback reached this node), saying how much room it has now. */
  reported(executorId: number, credit: number, creditSeq: number): void {
    this.credits.reported(executorId, credit, creditSeq, this.clock.now());
    const app = this.appOf.get(executorId);
    if (app !== undefined) this.wakeApp(app, this.credits.balance(executorId, 0), this.kept(executorId));
  }

  /** The app has no executor at all now: its held-back runs go back to the queue, to be deferred there as usual. */
  releaseApp(run: ClaimedRun): void {
    this.wakeApp(appKey(run), Infinity);
  }

  /** Everything held back, handed over (shutdown). */
  takeAll(): ClaimedRun[] {
    for (const { cancel } of this.timers.values()) cancel();
    this.timers.clear();
    const runs = [...this.waiting.values()].flatMap((lines) => lines.takeAll());
    this.waiting.clear();
    this.woken.clear();
    this.heldIds.clear();
    this.tally.clear();
    this.taskTally.clear();
    return runs;
  }

  /** This engine's part of the places kept on the executor for runs due now. */
  private kept(executorId: number): number {
    const shape = this.shapeOf.get(executorId);
    return shape ? this.credits.kept(shape.workers, shape.queueLimit) : 0;
  }

  private holdBack(app: string, run: ClaimedRun): void {
    let lines = this.waiting.get(app);
    if (!lines) this.waiting.set(app, (lines = new HeldBackLines()));
    // By instant (not dueAt: a run refused while sent ahead may be sent again before its instant,
    // and would stand before a run due now); among equal instants first come first, and a run
    // woken and held back again before them (it was there first).
    lines.add(run, this.woken.delete(run.runId));
    this.heldIds.set(run.runId, run.attempt);
    this.tally.add(run.tenantId);
    this.taskTally.add(taskKey(run.tenantId, run.taskId));
    this.arm(app);
  }

  /**
   * Answers in flight wake a list; with none coming, a probe's turn does (one run, or as many as
   * an executor has room for), or the instant of its first run sent ahead (the places kept for
   * runs due now are its then), and at the latest PROBE_MAX_MS after — the executors may have
   * gone, and a woken run learns so. A probe's turn never sooner than `earliest`: a run just
   * woken has not reserved its place yet.
   */
  private arm(app: string, earliest = 0): void {
    const lines = this.waiting.get(app);
    if (!lines) return;
    const now = this.clock.now();
    const executors = [...this.appOf].filter(([, a]) => a === app).map(([id]) => id);
    const first = lines.earliestInstant();
    const firstAhead = first - now > ON_TIME_WINDOW_MS ? first - ON_TIME_WINDOW_MS : Infinity;
    const at = Math.min(Math.max(earliest, Math.min(this.credits.nextProbeAt(executors), now + PROBE_MAX_MS)), firstAhead);
    const armed = this.timers.get(app);
    if (armed && armed.at <= at) return;
    armed?.cancel();
    const cancel = this.clock.after(
      // + 1: a timer may fire a millisecond early by Date.now(), before the probe's turn.
      Math.max(1, at - now + 1),
      () => {
        this.timers.delete(app);
        // The executor with the most room: as many runs as it takes; with none, one run (a probe).
        const best = executors.reduce((a, b) => (this.credits.balance(b, 0) > this.credits.balance(a, 0) ? b : a), executors[0]);
        const room = best === undefined ? 0 : this.credits.balance(best, 0);
        if (room > 0) this.wakeApp(app, room, this.kept(best));
        else this.wakeApp(app, 1);
        this.arm(app, this.clock.now() + PROBE_MIN_MS);
      },
    );
    this.timers.set(app, { cancel, at });
  }

  /** Wakes up to `n` runs (the room an executor has): runs due now, the tasks in turn, then runs sent ahead beyond the `kept` places. */
  private wakeApp(app: string, n: number, kept = 0): void {
    const lines = this.waiting.get(app);
    if (!lines || n <= 0) return;
    const now = this.clock.now();
    const woken = lines.take(n, kept, (run) => dueNow(run, now));
    if (lines.size === 0) {
      this.waiting.delete(app);
      const armed = this.timers.get(app);
      armed?.cancel();
      this.timers.delete(app);
    }
    // An ordering hint only: woken runs that never come back (deferred elsewhere) are forgotten in bulk.
    if (this.woken.size > 10_000) this.woken.clear();
    for (const run of woken) {
      this.heldIds.delete(run.runId);
      this.tally.remove(run.tenantId);
      this.taskTally.remove(taskKey(run.tenantId, run.taskId));
      this.woken.add(run.runId);
      this.resume(run);
    }
  }
}

/**
 * Whether a run counts as due now for the places kept: its instant has come or is within the
 * on-time window (the on-time lane starts a lone run up to its lead, ≤ 100 ms, before its instant);
 * a run further ahead was sent ahead.
 */
function dueNow(run: ClaimedRun, now: number): boolean {
  return !(run.instant - now > ON_TIME_WINDOW_MS);
}

/** The room an executor's last heartbeat showed (workers and queue places free), what stands in before its first answer. */
function heartbeatRoom(c: RoutedExecutor): number {
  return c.capacity + c.queueLimit - c.inFlight;
}

function appKey(run: ClaimedRun): string {
  return `${run.tenantId}\u0000${run.executorApp}`;
}
