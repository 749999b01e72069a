import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, parseParentResults, planShards, type Clock } from '@baton/domain';
import { deferRunDispatch, inTransaction, rerouteDispatchedRun, type ExecutingRunRow } from '@baton/persistence';
import type { DispatchRequest } from '@baton/protocol';
import { Alarms } from '../alarms/alarms';
import { ClaimSignal } from '../claimer/claim-signal';
import { TenantPace } from '../claimer/tenant-pace';
import type { ClaimedRun } from '../claimed-run';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { DispatchBatcher } from '../executors/dispatch-batcher';
import { ExecutorClient, type DispatchAnswer, type SigningTenant } from '../executors/executor-client';
import { ExecutorRegistry, type RoutedExecutor } from '../executors/executor-registry';
import { followUpTransaction } from '../follow-ups/follow-ups';
import { RunEvents } from '../follow-ups/run-events';
import { RunOutcomes, type AttemptRef } from '../follow-ups/run-outcomes';
import { EngineMetrics } from '../metrics/engine-metrics';
import { TenantDirectory, type TenantInfo } from '../tenants/tenant-directory';
import { DispatchAdmission } from './dispatch-admission';
import { CallbackUrls } from './callback-urls';
import { CreditGate } from './credit-gate';
import { GroupPeers } from '../node/group-peers';
import { DispatchMarks } from './dispatch-marks';
import { dispatchBackoffMs } from './dispatch-backoff';
import { RunStart } from './run-start';
import { SLOT_HOLD, type SlotHold } from './slot-hold';

/** With no executor in the routing table, re-read it at most this often before giving up on a run. */
const EMPTY_REGISTRY_REREAD_MS = 250;

/**
 * Sends due runs to executors. The DueQueue decides WHEN (due time, tokens — DispatchAdmission —
 * and a free slot); the Dispatcher does one run per slot:
 *
 * 1. Routing: the tenant's UP executors of the task's app, in the configured strategy's order
 *    (the executor of a taken-over run first). None → RETRY_WAIT after the dispatch backoff.
 *    A broadcast shard may go only to its pinned executor (gone: a failed attempt). A fan-out
 *    run stops here: it writes its shards instead of being sent (fanOut).
 * 2. Room on an executor (CreditGate: held back in memory while none has any), then the start
 *    (RunStart): concurrency policy and CLAIMED → DISPATCHED, BEFORE the POST; REPLACE's
 *    cancelled runs get an abort.
 * 3. Signed POST to each candidate in turn: 202 → slot freed, DISPATCHED → ACCEPTED written after;
 *    429, 5xx, timeout, network error → next candidate (executor_id re-pointed first);
 *    4xx → rejected by that executor, next candidate.
 * 4. Nobody took it: if every executor REJECTED it (e.g. 404 unknown handler) that is a failed
 *    attempt — the task's retry policy decides RETRY_WAIT (attempt + 1) or FAILED — with a
 *    DISPATCH_REJECTED alarm; otherwise (busy/unreachable) RETRY_WAIT after the dispatch
 *    backoff, same attempt (dispatch-backoff.ts), plus DISPATCH_REJECTED if some executor
 *    rejected it.
 *
 * A slot is held from the start of this sequence to the ack — milliseconds, never the work's
 * length — or as the injected SlotHold says (the bench's synchronous baseline: to the outcome).
 */
@Injectable()
export class Dispatcher implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Dispatcher');
  private inFlight = 0;
  private slotFreed: () => void = () => undefined;
  private keepForLater: (run: ClaimedRun, at: number) => void = () => undefined;
  private idleWaiters: Array<() => void> = [];
  /** ACCEPTED marks being written after their slot was freed (awaited at shutdown). */
  private readonly ackWrites = new Set<Promise<void>>();
  /** Runs no executor has room for wait there (credit-based flow control). */
  private readonly gate: CreditGate;

  constructor(
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly metrics: EngineMetrics,
    private readonly dataSource: DataSource,
    private readonly registry: ExecutorRegistry,
    private readonly client: ExecutorClient,
    private readonly batcher: DispatchBatcher,
    private readonly tenants: TenantDirectory,
    private readonly alarms: Alarms,
    private readonly outcomes: RunOutcomes,
    private readonly callbackUrls: CallbackUrls,
    events: RunEvents,
    private readonly marks: DispatchMarks,
    private readonly admission: DispatchAdmission,
    private readonly runStart: RunStart,
    @Inject(SLOT_HOLD) private readonly slotHold: SlotHold,
    peers: GroupPeers,
    private readonly claimSignal: ClaimSignal,
    private readonly pace: TenantPace,
  ) {
    this.gate = new CreditGate(
      () => this.clock.now(),
      (run) => this.keepForLater(run, this.clock.now()),
      () => peers.sharing(),
    );
    events.onExecutorCredit((executorId, credit, creditSeq) => this.gate.reported(executorId, credit, creditSeq));
  }

  /** Runs held back for want of room on any executor of their app. */
  get heldBack(): number {
    return this.gate.held;
  }

  /** Runs of one tenant held back. */
  heldBackOf(tenantId: string): number {
    return this.gate.heldOf(tenantId);
  }

  /** Hands over the runs held back (shutdown: the node releases them with the rest). */
  takeHeldBack(): ClaimedRun[] {
    return this.gate.takeAll();
  }

  /** Slots free for any due run. */
  get freeSlots(): number {
    return Math.max(0, this.config.slots - this.inFlight);
  }

  /** Slots free for a run still on time: the general ones and those kept for on-time work. */
  get freeOnTimeSlots(): number {
    return Math.max(0, this.config.slots + this.config.onTimeSlots - this.inFlight);
  }

  get slotsInUse(): number {
    return this.inFlight;
  }

  /** The DueQueue's hook: called whenever a slot is released. */
  onSlotFreed(listener: () => void): void {
    this.slotFreed = listener;
  }

  /** The DueQueue's hook: a run to hold again and retry at `at` (its dispatch failed and the database could not take it back). */
  onKeepForLater(listener: (run: ClaimedRun, at: number) => void): void {
    this.keepForLater = listener;
  }

  /** Runs are coming: read their tenants now, so quotas and secrets are cached by their due time. */
  prepare(runs: readonly ClaimedRun[]): void {
    this.tenants.prefetch(runs.map((r) => r.tenantId));
  }

  /** A token of the run's tenant and task queue (DispatchAdmission): 0 when taken, else the ms until there could be one. */
  takeTokens(run: ClaimedRun, now: number, ahead = 0): number {
    return this.admission.takeTokens(run, now, ahead);
  }

  /**
   * Dispatches one run in a slot of its own (the caller checked `freeSlots`, or `freeOnTimeSlots`
   * for a run `onTime`, whose DISPATCHED mark then goes out alone rather than behind a burst's). Never throws.
   */
  launch(run: ClaimedRun, onTime = false): void {
    this.inFlight++;
    this.metrics.slotsInUse.set(this.inFlight);
    const endTimer = this.metrics.slotHold.startTimer();
    this.dispatch(run, onTime)
      .catch(async (err: Error) => {
        this.logger.error(`dispatch failed: ${err.message}`, { tenantId: run.tenantId, runId: run.runId }, err.stack);
        // A run not sent yet goes back to the pool (RETRY_WAIT); a DISPATCHED one stays as it is:
        // it may be running (its callback or the watchdog's timeout will settle it). If the
        // database cannot take it back either (it is unreachable), the run is kept in memory
        // and tried again after the dispatch backoff: its row is CLAIMED by this live node,
        // whose lease renewals keep every other engine off it, so dropping it would strand it
        // (bench faults: 9–30 of 400 runs stuck CLAIMED after a 0.7 s MariaDB restart).
        const putBack = await this.defer(run, ['CLAIMED'], `engine error: ${err.message}`).then(
          () => true,
          () => false,
        );
        if (!putBack) {
          const now = this.clock.now();
          this.keepForLater(run, now + dispatchBackoffMs(now - run.scheduledAt, Math.random));
        }
      })
      .finally(() => {
        endTimer();
        this.inFlight--;
        this.metrics.slotsInUse.set(this.inFlight);
        if (this.inFlight === 0) this.idleWaiters.splice(0).forEach((wake) => wake());
        this.slotFreed();
      });
  }

  /** Resolves when no dispatch is in flight (or after `timeoutMs`). */
  idle(timeoutMs: number): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Lets dispatches in flight record their ack before the data source closes. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.idle(this.config.dispatchTimeoutMs + 1_000);
    await Promise.all([...this.ackWrites]);
  }

  private async dispatch(run: ClaimedRun, onTime: boolean): Promise<void> {
    const tenant = await this.tenants.get(run.tenantId);
    if (!tenant) {
      await this.defer(run, ['CLAIMED'], `tenant ${run.tenantId} not found`);
      return;
    }
    let candidates = await this.route(run, tenant);
    if (candidates.length === 0) {
      await this.registry.ensureFresh(EMPTY_REGISTRY_REREAD_MS);
      candidates = this.registry.candidates(run.tenantId, run.executorApp, String(run.taskId), run.executorId, tenant.executorNetworks);
    }
    const pinned = run.shard?.pinnedExecutorId ?? null;
    if (pinned !== null) {
      candidates = candidates.filter((c) => c.executorId === pinned);
      if (candidates.length === 0) return this.pinnedExecutorGone(run, pinned);
    }
    if (candidates.length === 0) {
      this.gate.releaseApp(run);
      this.metrics.dispatchFailures.inc({ reason: 'NO_EXECUTOR' });
      const refused = this.registry.onlyRefusedUrls(run.tenantId, run.executorApp, tenant.executorNetworks);
      await this.defer(run, ['CLAIMED'], `no executor of app "${run.executorApp}" is UP${refused ? " at a URL the tenant's executor networks allow" : ''}`);
      return;
    }

    if (run.fanOut.mode !== 'SINGLE' && run.shard === null) return this.fanOut(run, tenant, candidates);

    candidates = this.gate.admit(run, candidates);
    if (candidates.length === 0) {
      // Held back until an executor has room (CreditGate); the slot is free again, and the run's
      // tokens go back to its buckets: it takes them anew when it comes round.
      this.admission.refund(run, this.clock.now());
      return;
    }
    let reserved: number | null = candidates[0].executorId;
    try {
      const start = await this.runStart.start(run, { kind: 'SEND', executorId: candidates[0].executorId }, onTime);
      if (start.kind !== 'DISPATCHED') return;
      this.started(run, start, tenant);

      const refusals: Array<{ executor: RoutedExecutor; answer: Exclude<DispatchAnswer, { kind: 'ACCEPTED' }> }> = [];
      for (const [i, executor] of candidates.entries()) {
        if (i > 0) {
          const reroutedAt = this.clock.now();
          const stillOurs = await inTransaction(this.dataSource, (em) =>
            rerouteDispatchedRun(em, {
              runId: run.runId,
              attempt: run.attempt,
              nodeId: this.config.nodeId,
              executorId: executor.executorId,
              now: reroutedAt,
              deadlineAt: reroutedAt + run.timeoutMs,
            }),
          );
          if (!stillOurs) return; // ended meanwhile (an executor that timed out on us did start it and called back)
        }
        const released = this.slotHold.untilReleased(run);
        const { answer, leftAt } = await this.send(executor, tenant, run, reserved === executor.executorId);
        reserved = null;
        if (answer.kind === 'ACCEPTED') {
          this.registry.noteAccepted(executor.executorId);
          this.recordAck(run, leftAt, this.clock.now());
          this.pace.accepted(run.tenantId, this.clock.now());
          this.metrics.runsFired.inc();
          if (released) await released;
          return;
        }
        refusals.push({ executor, answer });
        this.metrics.dispatchFailures.inc({ reason: answer.kind === 'BUSY' ? 'BUSY' : answer.kind === 'REJECTED' ? 'REJECTED' : 'UNREACHABLE' });
        if (answer.kind === 'UNKNOWN') break; // deferred, still pointing at this executor (see send)
      }
      await this.noneTookIt(run, refusals);
    } finally {
      // Admitted but never sent (skipped, lost, an error): the room reserved is given back.
      if (reserved !== null) this.gate.answered(reserved, { kind: 'OTHER' });
    }
  }

  /**
   * A run of a BROADCAST or SHARDED task is not sent: it writes its shards (domain planShards over
   * the executors routing offers now) and runs until they have all ended. The shards are claimed
   * and sent like any run, by whichever engine of the group gets them. A BROADCAST over more
   * executors than the shard cap leaves the rest out, and the warning names them.
   */
  private async fanOut(run: ClaimedRun, tenant: SigningTenant, candidates: readonly RoutedExecutor[]): Promise<void> {
    const { shards, leftOut } = planShards(run.fanOut, candidates.map((c) => c.executorId));
    const start = await this.runStart.start(run, { kind: 'FAN_OUT', shards }, false);
    if (start.kind !== 'FANNED_OUT') return;
    this.claimSignal.newRuns();
    this.started(run, start, tenant);
    this.logger.log(`run ${run.runId} fanned out into ${shards.length} shard(s) (${run.fanOut.mode})`, { tenantId: run.tenantId, runId: run.runId });
    if (leftOut.length > 0) {
      const named = leftOut.slice(0, 20).join(', ') + (leftOut.length > 20 ? ', …' : '');
      this.logger.warn(`run ${run.runId}: ${leftOut.length} UP executor(s) beyond the ${shards.length}-shard cap got no shard (executor ids ${named})`, { tenantId: run.tenantId, runId: run.runId });
    }
  }

  /** A run has started (sent, or fanned out): the runs REPLACE cancelled get their abort, and its lateness is measured. */
  private started(run: ClaimedRun, start: { at: number; replaced: readonly ExecutingRunRow[] }, tenant: SigningTenant): void {
    for (const replaced of start.replaced) this.abort(tenant, replaced, 'REPLACED');
    const reference = run.attempt === 1 ? run.scheduledAt : run.dueAt;
    this.metrics.lateness.observe(Math.max(0, start.at - reference) / 1000);
  }

  /**
   * A broadcast shard's executor is not UP (any more): it cannot run anywhere else, so the attempt
   * fails — and is retried per the task's policy, in case the executor comes back — rather than
   * waiting for an executor that may never return while its fan-out run waits for it.
   */
  private async pinnedExecutorGone(run: ClaimedRun, executorId: number): Promise<void> {
    this.metrics.dispatchFailures.inc({ reason: 'NO_EXECUTOR' });
    const now = this.clock.now();
    await followUpTransaction(this.dataSource, (em) =>
      this.outcomes.endAttempt(em, attemptOf(run), { to: 'FAILED', error: `executor ${executorId} of this broadcast is not UP` }, { from: ['CLAIMED'], claimedBy: this.config.nodeId, now }),
    );
  }

  /**
   * One dispatch POST to `executor`, its credit accounted for (`reserved`: admit took it already).
   * `leftAt` is when the request left, not when the run was marked DISPATCHED: in a burst the two
   * are apart by the wait for a socket and the signing of the runs ahead (issue 11: T+4 ms shown
   * for requests that left hundreds of ms later); the ack writes it as the run's dispatched_at.
   * No answer, yet the executor may have started the run: the same executor is asked once more
   * (it de-duplicates by run and attempt); an ambiguous run never goes to another executor.
   */
  private async send(executor: RoutedExecutor, tenant: SigningTenant, run: ClaimedRun, reserved: boolean): Promise<{ answer: DispatchAnswer; leftAt: number }> {
    if (!reserved) this.gate.sent(executor.executorId);
    let leftAt = this.clock.now();
    let answer: DispatchAnswer = await this.batcher.dispatch(executor.url, tenant, this.request(run, leftAt));
    if (answer.kind === 'UNKNOWN') {
      leftAt = this.clock.now();
      answer = await this.batcher.dispatch(executor.url, tenant, this.request(run, leftAt));
    }
    this.gate.answered(
      executor.executorId,
      answer.kind === 'ACCEPTED' ? { kind: 'ACCEPTED', credit: answer.credit, creditSeq: answer.creditSeq } : answer.kind === 'BUSY' ? { kind: 'BUSY' } : { kind: 'OTHER' },
    );
    return { answer, leftAt };
  }

  /**
   * DISPATCHED → ACCEPTED, without holding the slot: the executor has the run, which is all the
   * slot waited for (MTHPT: the engine is free again at the ack). The mark is bookkeeping — it
   * re-bases the timeout — and joins the other slots' marks; if it cannot be written the run
   * stays DISPATCHED, whose deadline the watchdog enforces, and its callback ends it as usual.
   */
  private recordAck(run: ClaimedRun, sentAt: number, at: number): void {
    const write: Promise<void> = this.marks
      .markAccepted(run, sentAt, at)
      .catch((err: Error) => this.logger.warn(`ACCEPTED mark not written: ${err.message}`, { tenantId: run.tenantId, runId: run.runId }))
      .finally(() => this.ackWrites.delete(write));
    this.ackWrites.add(write);
  }

  private async route(run: ClaimedRun, tenant: TenantInfo): Promise<RoutedExecutor[]> {
    await this.registry.ensureFresh();
    return this.registry.candidates(run.tenantId, run.executorApp, String(run.taskId), run.executorId, tenant.executorNetworks);
  }

  private request(run: ClaimedRun, sentAt: number): DispatchRequest {
    return {
      runId: run.runId,
      attempt: run.attempt,
      tenantId: run.tenantId,
      taskId: run.taskId,
      taskName: run.taskName,
      handler: run.handler,
      params: (run.params ?? null) as DispatchRequest['params'],
      scheduledAt: run.scheduledAt,
      deadline: sentAt + run.timeoutMs,
      callbackUrls: this.callbackUrls.urls(run.engineGroup),
      ...(run.parentResults ? { parentResults: parseParentResults(run.parentResults) } : {}),
      ...(run.flowParams ? { flowParams: JSON.parse(run.flowParams) as DispatchRequest['flowParams'] } : {}),
      ...(run.shard ? { shardIndex: run.shard.index, shardTotal: run.shard.total } : {}),
    };
  }

  /** Every candidate refused or failed: a failed attempt (all rejected) or a deferral (see the class comment). */
  private async noneTookIt(run: ClaimedRun, refusals: Array<{ executor: RoutedExecutor; answer: Exclude<DispatchAnswer, { kind: 'ACCEPTED' }> }>): Promise<void> {
    const describe = refusals
      .map(({ executor, answer }) => {
        if (answer.kind === 'REJECTED') return `${executor.url}: ${answer.status} ${answer.reason} ${answer.message}`.trim();
        if (answer.kind === 'BUSY') return `${executor.url}: 429 busy`;
        if (answer.kind === 'UNKNOWN') return `${executor.url}: no answer, may have started it (${answer.message})`;
        return `${executor.url}: ${answer.status ?? 'no answer'} ${answer.message}`.trim();
      })
      .join('; ');
    const rejected = refusals.filter((r) => r.answer.kind === 'REJECTED');
    if (rejected.length > 0 && rejected.length === refusals.length) {
      const now = this.clock.now();
      await followUpTransaction(this.dataSource, (em) =>
        this.outcomes.endAttempt(em, attemptOf(run), { to: 'FAILED', error: `rejected by every executor: ${describe}` }, {
          from: ['DISPATCHED'],
          claimedBy: this.config.nodeId,
          now,
          alarm: { type: 'DISPATCH_REJECTED' },
        }),
      );
      return;
    }
    const unanswered = refusals.find((r) => r.answer.kind === 'UNKNOWN');
    await this.defer(run, ['DISPATCHED'], `no executor took it: ${describe}`, rejected.length > 0 ? describe : null, unanswered?.executor.executorId ?? null);
  }

  /** Back to RETRY_WAIT after the dispatch backoff, same attempt; optionally with a DISPATCH_REJECTED alarm. */
  private async defer(
    run: ClaimedRun,
    from: ReadonlyArray<'CLAIMED' | 'DISPATCHED'>,
    reason: string,
    rejection: string | null = null,
    executorId: number | null = null,
  ): Promise<void> {
    const now = this.clock.now();
    const delay = dispatchBackoffMs(now - run.scheduledAt, Math.random);
    await inTransaction(this.dataSource, async (em) => {
      const deferred = await deferRunDispatch(em, {
        runId: run.runId,
        attempt: run.attempt,
        nodeId: this.config.nodeId,
        from,
        dueAt: now + delay,
        executorId,
        error: `Dispatch deferred by ${delay} ms: ${reason}`.slice(0, 10_000),
        now,
      });
      if (deferred && rejection !== null) {
        await this.alarms.raise(em, {
          tenantId: run.tenantId,
          type: 'DISPATCH_REJECTED',
          severity: 'WARNING',
          taskId: run.taskId,
          runId: run.runId,
          message: `Task ${run.taskName}: run ${run.runId} attempt ${run.attempt} was rejected by executor(s): ${rejection} — dispatch retried in ${delay} ms`,
          now,
        });
      }
    });
  }

  private abort(tenant: SigningTenant, run: ExecutingRunRow, reason: 'REPLACED' | 'CANCELLED'): void {
    if (!run.executorUrl) return;
    void this.client.abort(run.executorUrl, tenant, { runId: run.runId, attempt: run.attempt, reason }).then((status) => {
      if (status === null || status >= 500) this.logger.warn(`abort at ${run.executorUrl}: ${status ?? 'no answer'}`, { tenantId: tenant.id, runId: run.runId });
    });
  }

}

function attemptOf(run: ClaimedRun): AttemptRef {
  return {
    runId: run.runId,
    tenantId: run.tenantId,
    taskId: run.taskId,
    taskName: run.taskName,
    attempt: run.attempt,
    flowId: run.flowId,
    retry: run.retry,
    executorId: run.executorId,
    shardOf: run.shard?.parentRunId ?? null,
  };
}
