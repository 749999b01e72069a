import { Logger, type OnModuleDestroy } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { RunCancels, RunWakeup, RunWakeups } from '@baton/messaging';
import { findTenants, findUpEngineNodes, TableSnapshot, type EngineNodeRow } from '@baton/persistence';
import { MAX_CANCEL_NOTICE_RUNS, MAX_WAKE_RUNS, OutboundAgents, PATHS, postOutbound, sign, SIGNATURE_HEADERS, WAKE_ROWS_HEADER, wakeRowsProof, type CancelNotice, type OutboundAnswer, type WakeRequest } from '@baton/protocol';
import type { Clock } from '../common/clock';
import { isLiveEngine } from '../common/live-engines';
import { MAX_WAITING_NOTICES_PER_TENANT, nextAfter, NOTICE_GIVE_UP_MS, WaitingNotices, type EngineNotice } from './cancel-notice-retries';

/**
 * The live engines and the tenants' secrets are read again after this long: a new engine is woken
 * within a second of its start. The re-read happens beside the wake-up, which goes out with what
 * was read before: a run now does not wait for two reads every second (they were its p90).
 */
const REREAD_MS = 1_000;
/** A wake-up is a hint: an engine that does not answer in this long is left to its poll (a cancel notice is sent again). */
const TIMEOUT_MS = 2_000;
/**
 * A wake-up goes to one live engine of the group; the others hear it too when that one has not
 * answered 204 within this long (busy, frozen, gone). An engine answers a wake-up before it claims
 * (WakeController), in 1–10 ms on a busy 2-core machine.
 */
export const WAKE_HEDGE_MS = 50;
/**
 * A wake-up carries its runs' rows (WokenRows on the engine) up to this size of body (256 KiB);
 * a larger one names the runs only, and the engine reads them: its params may be large, and the
 * engine keeps the rows it was given until it claims them.
 */
const MAX_WAKE_ROWS_CHARS = 256 * 1024;

/**
 * Wake-ups over HTTP: POST /baton/wake (and a cancel's POST /baton/cancelled), signed with the
 * tenant's executor secret, to the live engines of the tenant's group (read from engine_nodes),
 * answers not awaited by the caller. A wake-up goes to one engine, the next one to the next (they
 * share the runs named), and to all the others as well when that one has not answered within
 * WAKE_HEDGE_MS: a busy or dying engine holds a run back by that much, not until a poll. Telling
 * every engine every time cost each run a second signed request and a second claim by id that
 * found nothing (a fifth of a trigger's CPU over all processes: docs/BENCHMARKS.md, on demand).
 * A cancel notice goes to every live engine: any of them may hold the run. Engine URLs are the engines' own
 * registrations, so no outbound policy applies to them (the check lets every address through).
 * A wake-up is a hint (a poll finds its run: WOKEN_RUNS_GRACE_MS), sent once; a cancel notice is what stops a
 * run sent ahead, so one an engine refused with 429 or did not answer is sent to it again
 * (cancel-notice-retries.ts) until it takes it, refuses it for good, leaves, or 30 s pass.
 */
export class EngineWakeups implements RunWakeups, OnModuleDestroy {
  private readonly logger = new Logger('EngineWakeups');
  private readonly agents = new OutboundAgents({ maxSockets: 4 });
  private readonly engines: TableSnapshot<EngineNodeRow[]>;
  private readonly secrets = new Map<string, TableSnapshot<string | null>>();
  /** Wake-ups of this turn of the event loop, one per tenant (the earliest): a bulk re-run of 500 runs wakes the engines once. */
  private pending = new Map<string, RunWakeup>();
  /** Wake-ups sent so far: the next goes to the engine after the last one's. */
  private turn = 0;
  /** The hedges waiting (their timers), cleared on shutdown. */
  private readonly hedges = new Set<() => void>();
  /** The last signing time used per tenant: see signedAt. */
  private readonly lastSignedAt = new Map<string, number>();
  private readonly waiting: WaitingNotices;

  /**
   * @param options.exceptNodeId an engine node never reached over HTTP: the one sharing this
   *   console's process (NodeWakeups reaches it by a call). Default: none.
   */
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly options: { exceptNodeId?: string } = {},
  ) {
    this.engines = this.snapshot(() => findUpEngineNodes(dataSource.manager), [], 'the live engines');
    this.waiting = new WaitingNotices(clock);
  }

  wake(wakeup: RunWakeup): void {
    const pending = this.pending.get(wakeup.tenantId);
    // A microtask, not setImmediate: the wake-ups one commit's hooks make together still go as one,
    // and the run-now's does not wait for the rest of the event loop's turn (0.5 ms at the median).
    if (this.pending.size === 0) queueMicrotask(() => this.flush());
    this.pending.set(wakeup.tenantId, joined(pending ?? { ...wakeup, runIds: [], runs: [] }, wakeup));
  }

  /** POST /baton/cancelled to the group's live engines, at once (a cancel is rare; what it stops is on its way). */
  cancelled(cancels: RunCancels): void {
    for (let i = 0; i < cancels.runIds.length; i += MAX_CANCEL_NOTICE_RUNS) {
      const runIds = cancels.runIds.slice(i, i + MAX_CANCEL_NOTICE_RUNS);
      this.notify(cancels, JSON.stringify({ runIds } satisfies CancelNotice), runIds.length).catch((err: Error) =>
        this.logger.warn(`cancel notice to tenant ${cancels.tenantId}'s engines failed: ${err.message}`, { tenantId: cancels.tenantId }),
      );
    }
  }

  private flush(): void {
    const wakeups = [...this.pending.values()];
    this.pending = new Map();
    for (const wakeup of wakeups) {
      const runIds = wakeup.runIds?.length ? [...wakeup.runIds] : undefined;
      const ids = JSON.stringify({ dueAt: wakeup.dueAt, runIds } satisfies WakeRequest);
      const carried = runIds && wakeup.runs?.length === runIds.length ? JSON.stringify({ dueAt: wakeup.dueAt, runIds, runs: [...wakeup.runs] } satisfies WakeRequest) : null;
      this.send(wakeup, { ids, withRows: carried !== null && carried.length <= MAX_WAKE_ROWS_CHARS ? carried : null }).catch((err: Error) => this.logger.warn(`wake-up of tenant ${wakeup.tenantId}'s engines failed: ${err.message}`, { tenantId: wakeup.tenantId }));
    }
  }

  onModuleDestroy(): void {
    for (const cancel of this.hedges) cancel();
    this.hedges.clear();
    this.waiting.close();
    this.agents.destroy();
  }

  /**
   * One signed wake-up to the next live engine of the tenant's group; to the others too when it has
   * not taken it within WAKE_HEDGE_MS. An engine with a wake key gets the runs' rows (`withRows`,
   * when the wake-up has them), proved with its key (WAKE_ROWS_HEADER); one without, `ids`.
   */
  private async send(to: { tenantId: string; engineGroup: string }, wake: { ids: string; withRows: string | null }): Promise<void> {
    const reached = await this.reach(to);
    if (!reached || reached.engines.length === 0) return;
    const signed = new Map<string, Record<string, string>>();
    const signedOnce = (body: string) => signed.get(body) ?? signed.set(body, this.signed(to.tenantId, reached.secret, PATHS.wake, body)).get(body)!;
    const wakeOne = (engine: EngineNodeRow) => {
      if (engine.wakeKey === null || wake.withRows === null) return this.wakeOne(engine, wake.ids, signedOnce(wake.ids), to.tenantId);
      const headers = signedOnce(wake.withRows);
      return this.wakeOne(engine, wake.withRows, { ...headers, [WAKE_ROWS_HEADER]: wakeRowsProof(engine.wakeKey, headers[SIGNATURE_HEADERS.signature]) }, to.tenantId);
    };
    const { engines } = reached;
    const first = engines[this.turn++ % engines.length];
    const woken = wakeOne(first);
    if (engines.length === 1) return void (await woken);
    let cancel = () => undefined as void;
    const late = new Promise<false>((resolve) => {
      cancel = this.clock.after(WAKE_HEDGE_MS, () => resolve(false));
      this.hedges.add(cancel);
    });
    const taken = await Promise.race([woken, late]);
    cancel();
    this.hedges.delete(cancel);
    if (taken) return;
    await Promise.all(engines.filter((e) => e !== first).map(wakeOne));
  }

  /** One engine woken: whether it took the wake-up (204). */
  private async wakeOne(engine: EngineNodeRow, body: string, headers: Record<string, string>, tenantId: string): Promise<boolean> {
    const answer = await this.post(engine, PATHS.wake, body, headers);
    if ('failure' in answer) this.logger.debug?.(`engine ${engine.id} not reached on ${PATHS.wake} (${answer.code})`, { tenantId });
    else if (answer.status !== 204) this.warnRefused(engine.id, PATHS.wake, answer, tenantId);
    return 'status' in answer && answer.status === 204;
  }

  /** A cancel notice to every live engine of the tenant's group, each followed until that engine takes it. */
  private async notify(to: RunCancels, body: string, runCount: number): Promise<void> {
    const reached = await this.reach(to, true);
    if (!reached) return;
    const since = this.clock.now();
    const headers = this.signed(to.tenantId, reached.secret, PATHS.cancelled, body);
    await Promise.all(
      reached.engines.map(async (engine) => {
        const notice: EngineNotice = { tenantId: to.tenantId, engineGroup: to.engineGroup, engineId: engine.id, body, runCount, since, attempt: 1 };
        this.follow(notice, await this.post(engine, PATHS.cancelled, body, headers));
      }),
    );
  }

  /** The notice again, signed anew (an engine refuses a signature it has seen), if its engine is still live. */
  private async resend(notice: EngineNotice): Promise<void> {
    const reached = await this.reach(notice, true);
    if (!reached) return; // the tenant is gone, and its runs with it
    const engine = reached.engines.find((e) => e.id === notice.engineId);
    if (!engine) return this.giveUp(notice, 'the engine is no longer live');
    const headers = this.signed(notice.tenantId, reached.secret, PATHS.cancelled, notice.body);
    // A pool of the tenant's own: its resent notices never take the sockets of everyone's first sendings and wake-ups.
    this.follow(notice, await this.post(engine, PATHS.cancelled, notice.body, headers, `retry:${notice.tenantId}`));
  }

  /** After an engine's answer to a notice: done, warned about (refused for good), or sent again later. */
  private follow(notice: EngineNotice, answer: OutboundAnswer): void {
    const now = this.clock.now();
    const next = nextAfter(answer, notice.attempt, now);
    if (next.kind === 'again') this.again(notice, next.inMs, 'failure' in answer ? answer.code : `HTTP ${answer.status}`, now);
    else if (next.kind === 'refused' && 'status' in answer) this.warnRefused(notice.engineId, PATHS.cancelled, answer, notice.tenantId);
  }

  /** Waits `inMs` and sends the notice again, unless that would end past NOTICE_GIVE_UP_MS: then it is given up at once. */
  private again(notice: EngineNotice, inMs: number, last: string, now: number): void {
    if (now + inMs - notice.since > NOTICE_GIVE_UP_MS) return this.giveUp(notice, `not taken in ${NOTICE_GIVE_UP_MS / 1000} s (last: ${last})`);
    this.logger.debug?.(`engine ${notice.engineId} did not take a cancel notice (${last}): sent again in ${inMs} ms`, { tenantId: notice.tenantId });
    const dropped = this.waiting.wait({ ...notice, attempt: notice.attempt + 1 }, inMs, (waited) => this.resend(waited).catch((err: Error) => this.giveUp(waited, err.message)));
    if (dropped) this.giveUp(dropped, `more than ${MAX_WAITING_NOTICES_PER_TENANT} of the tenant's notices were waiting to be sent again`);
  }

  private giveUp(notice: EngineNotice, why: string): void {
    this.logger.warn(
      `cancel notice of tenant ${notice.tenantId} to engine ${notice.engineId} given up: ${why}; ${notice.runCount} run ids not delivered there (those sent ahead start at their instant unless another engine of the group aborted them; their outcome is refused, they stay CANCELLED)`,
      { tenantId: notice.tenantId },
    );
  }

  private warnRefused(engineId: string, path: string, answer: { status: number; body: string }, tenantId: string): void {
    this.logger.warn(`engine ${engineId} refused ${path}: HTTP ${answer.status} ${answer.body.slice(0, 200)}`, { tenantId });
  }

  /**
   * The live engines of the tenant's group and its secret; null when the tenant has none (it is gone).
   * `fresh` (a cancel notice): the engines as read at most REREAD_MS ago, waiting for a read if need
   * be. The snapshot at hand is as old as the console's last wake-up or notice: after a quiet spell
   * longer than ENGINE_SILENT_MS (live-engines.ts) every engine in it looks silent, and a notice sent with it would reach no
   * engine, so the run sent ahead it cancels would start at its instant. A wake-up is a hint and
   * goes with the snapshot at hand (a poll finds its run).
   */
  private async reach(to: { tenantId: string; engineGroup: string }, fresh = false): Promise<{ engines: EngineNodeRow[]; secret: string } | null> {
    const live = fresh ? this.engines.fresh(REREAD_MS) : this.engines.current(REREAD_MS);
    const [engines, secret] = await Promise.all([live, this.secretOf(to.tenantId)]);
    if (secret === null) return null;
    const now = this.clock.now();
    return { engines: engines.filter((e) => e.id !== this.options.exceptNodeId && e.groups.includes(to.engineGroup) && isLiveEngine(e, now)), secret };
  }

  private signed(tenantId: string, secret: string, path: string, body: string): Record<string, string> {
    return { 'content-type': 'application/json', ...sign(secret, tenantId, 'POST', path, body, this.signedAt(tenantId, this.clock.now())) };
  }

  private post(engine: EngineNodeRow, path: string, body: string, headers: Record<string, string>, pool?: string): Promise<OutboundAnswer> {
    return postOutbound({
      url: `${engine.url.replace(/\/+$/, '')}${path}`,
      body,
      headers,
      check: () => null,
      timeoutMs: TIMEOUT_MS,
      maxResponseBytes: 4096,
      agents: this.agents,
      pool,
    });
  }

  /**
   * A signing time later than the tenant's last one: two triggers committed in the same
   * millisecond would otherwise send the same body under the same timestamp — the same signature,
   * which an engine refuses as a replay, and the second run would wait for a poll. Ahead of the
   * clock by a few ms at most, well inside the engines' skew window.
   */
  private signedAt(tenantId: string, now: number): number {
    const at = Math.max(now, (this.lastSignedAt.get(tenantId) ?? 0) + 1);
    this.lastSignedAt.set(tenantId, at);
    return at;
  }

  private secretOf(tenantId: string): Promise<string | null> {
    let secret = this.secrets.get(tenantId);
    if (!secret) {
      secret = this.snapshot(() => findTenants(this.dataSource.manager, [tenantId]).then((rows) => rows[0]?.executorSecret ?? null), null, `tenant ${tenantId}'s secret`);
      this.secrets.set(tenantId, secret);
    }
    return secret.current(REREAD_MS);
  }

  private snapshot<T>(read: () => Promise<T>, initial: T, what: string): TableSnapshot<T> {
    return new TableSnapshot(read, { initial, now: () => this.clock.now(), onError: (err) => this.logger.warn(`reading ${what} failed, waking with the last one read: ${err.message}`) });
  }
}

/**
 * Two wake-ups of a tenant as one: the earlier due time, and the runs of both while they fit in
 * one request (MAX_WAKE_RUNS) — past that, or when one names none, none: the engines then read the
 * tenant's due runs. (A single wake-up is joined to an empty one: one naming more runs than a
 * request may carry is refused by the engines, and its runs waited for a poll.)
 */
function joined(a: RunWakeup, b: RunWakeup): RunWakeup {
  const runIds = a.runIds && b.runIds && a.runIds.length + b.runIds.length <= MAX_WAKE_RUNS ? [...a.runIds, ...b.runIds] : undefined;
  // The rows go along while both carry all of theirs.
  const runs = runIds && a.runs && b.runs ? [...a.runs, ...b.runs] : undefined;
  return { tenantId: a.tenantId, engineGroup: a.engineGroup, dueAt: Math.min(a.dueAt, b.dueAt), runIds, runs };
}
