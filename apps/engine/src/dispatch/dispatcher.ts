import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { CLOCK, planShards, type Clock } from '@baton/domain';
import { MAX_START_IN_MS } from '@baton/protocol';
import { traceFields } from '@baton/tracing';
import type { ExecutingRunRow } from '@baton/persistence';
import { ClaimSignal } from '../common/claim-signal';
import { TenantPace } from '../claimer/tenant-pace';
import type { ClaimedRun } from '../common/claimed-run';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { ExecutorClient, type SigningTenant } from '../executors/executor-client';
import { ExecutorRegistry, STARTS_AT_INSTANT_FROM, type RoutedExecutor } from '../executors/executor-registry';
import { EngineMetrics } from '../metrics/engine-metrics';
import { DispatchMarks } from '../runs/dispatch-marks';
import { DispatchSetbacks } from '../runs/dispatch-setbacks';
import { HeldAttempts } from '../runs/held-attempts';
import { RunStart } from '../runs/run-start';
import { TenantDirectory } from '../tenants/tenant-directory';
import { CreditGate } from './credit-gate';
import { DispatchAdmission } from './dispatch-admission';
import { dispatchBackoffMs } from '../common/dispatch-backoff';
import { DispatchRouter } from './dispatch-router';
import { DispatchSender, type Refusal } from './dispatch-sender';
import { OnTimeLead } from './on-time-lead';
import { SLOT_HOLD, type SlotHold } from './slot-hold';
import { startsByMark } from './starts-by-mark';
import { TenantTally } from './tenant-tally';

/** General slots kept from a tenant for each other tenant with runs on the engine… */
export const SLOTS_KEPT_PER_TENANT = 2;
/** …up to this share of BATON_ENGINE_SLOTS (16 of the default 64). */
export const MOST_SLOTS_KEPT = 0.25;

/**
 * Sends due runs to executors. The DueQueue decides WHEN (due time, tokens — DispatchAdmission —
 * and a free slot); the Dispatcher owns the slots and does one run per slot, in four steps, each
 * another class's: where it can go (DispatchRouter: routing and room on an executor, writing
 * nothing), its start (RunStart: concurrency policy and CLAIMED → DISPATCHED before the POST, or
 * a fan-out run's shards), the POSTs (DispatchSender: a verdict — ACCEPTED, REFUSED, LOST), and
 * what the verdict means for the run: ACCEPTED marked after the slot is freed (DispatchMarks),
 * every executor rejecting it a failed attempt, anything else RETRY_WAIT after the dispatch
 * backoff, same attempt (DispatchSetbacks).
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
  /** Runs being dispatched, each with its attempt: from their launch to their slot's release. */
  private readonly inHand = new Map<number, number>();
  /** ACCEPTED marks being written after their slot was freed, by run (awaited at shutdown). */
  private readonly ackWrites = new Map<number, Promise<void>>();
  /** Tenants with a run in the on-time lane now (started ahead of its instant, or being sent): one at a time each. */
  private readonly inLane = new Set<string>();
  private readonly lead = new OnTimeLead();
  /** Dispatches in flight by tenant (mayTakeSlot). */
  private readonly inFlightByTenant = new TenantTally();

  constructor(
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly metrics: EngineMetrics,
    private readonly registry: ExecutorRegistry,
    private readonly client: ExecutorClient,
    private readonly tenants: TenantDirectory,
    private readonly router: DispatchRouter,
    private readonly sender: DispatchSender,
    /** Runs no executor has room for wait there (credit-based flow control). */
    private readonly gate: CreditGate,
    private readonly marks: DispatchMarks,
    private readonly attempts: HeldAttempts,
    private readonly setbacks: DispatchSetbacks,
    private readonly admission: DispatchAdmission,
    private readonly runStart: RunStart,
    @Inject(SLOT_HOLD) private readonly slotHold: SlotHold,
    private readonly claimSignal: ClaimSignal,
    private readonly pace: TenantPace,
  ) {
    gate.onResume((run) => this.keepForLater(run, this.clock.now()));
  }

  /** Runs held back for want of room on any executor of their app. */
  get heldBack(): number {
    return this.gate.held;
  }

  /** Runs of one tenant held back. */
  heldBackOf(tenantId: string): number {
    return this.gate.heldOf(tenantId);
  }

  /** Runs of one task of the tenant held back. */
  heldBackOfTask(tenantId: string, taskId: number): number {
    return this.gate.heldOfTask(tenantId, taskId);
  }

  /** Whether this run is in the dispatcher's hands: being dispatched, its ACCEPTED mark being written, or held back. */
  holds(runId: number): boolean {
    return this.inHand.has(runId) || this.ackWrites.has(runId) || this.gate.holds(runId);
  }

  /** Whether this attempt of the run is being dispatched (in a slot, before its answer) or held back for room. */
  sends(run: { runId: number; attempt: number }): boolean {
    return this.inHand.get(run.runId) === run.attempt || this.gate.holds(run.runId, run.attempt);
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

  /**
   * Whether a run of this tenant may take a general slot: it leaves SLOTS_KEPT_PER_TENANT of them
   * for each other tenant here (`othersHeld`: tenants with runs held by this engine; or with a
   * dispatch in flight), at most MOST_SLOTS_KEPT of them, at least one slot its own. A tenant
   * whose executors are slow to answer (each dispatch holds its slot up to
   * BATON_DISPATCH_TIMEOUT_MS) cannot take every slot from the others; a tenant alone on the
   * engine has them all, and one beside a few others all but a few: a slot kept from a burst
   * whose acks are slow is throughput it loses (docs/BENCHMARKS.md, "Tenants in turn").
   */
  mayTakeSlot(tenantId: string, othersHeld: number): boolean {
    const others = Math.max(othersHeld, this.inFlightByTenant.size - (this.inFlightByTenant.of(tenantId) > 0 ? 1 : 0));
    const kept = Math.min(Math.floor(this.config.slots * MOST_SLOTS_KEPT), SLOTS_KEPT_PER_TENANT * others);
    return this.inFlightByTenant.of(tenantId) < Math.max(1, this.config.slots - kept);
  }

  /** How long before its instant the on-time lane starts a run (OnTimeLead): what its recent starts took. */
  get onTimeLeadMs(): number {
    return this.lead.ms;
  }

  /**
   * Whether the run may be sent ahead of its instant (BATON_SEND_AHEAD_MS): its start is only its
   * DISPATCHED mark, and every UP executor of its app starts it at the instant itself.
   */
  sendsAhead(run: ClaimedRun): boolean {
    return this.mayGoAhead(run) && this.registry.startsAtInstant(run.tenantId, run.executorApp);
  }

  /**
   * Executors with room now for `count` runs of the task due now (CreditGate.places, in the
   * routing order of the tenant's UP executors of the app); null when they have less, none is UP,
   * or the tenant is not known here yet.
   */
  placesFor(tenantId: string, executorApp: string, taskId: number, count: number): number[] | null {
    const tenant = this.tenants.peek(tenantId);
    if (!tenant) return null;
    const candidates = this.registry.candidates(tenantId, executorApp, String(taskId), null, tenant.executorNetworks);
    return candidates.length === 0 ? null : this.gate.places(candidates, count);
  }

  /** The routing table re-read if stale, so sendsAhead judges runs by the executors UP now (a failed read keeps the last table). */
  refreshRouting(): Promise<void> {
    return this.registry.ensureFresh();
  }

  /** Sending ahead is on, and the run's start is only its DISPATCHED mark. */
  private mayGoAhead(run: ClaimedRun): boolean {
    return this.config.sendAheadMs > 0 && startsByMark(run);
  }

  /** The tenant's claim share (1 until its row is cached: DueQueue.accept prefetches it): its runs per turn in the ready line. */
  shareOf(tenantId: string): number {
    return this.tenants.peek(tenantId)?.claimShare ?? 1;
  }

  /** Whether a run of this tenant is in the on-time lane now: the lane takes one run of a tenant at a time. */
  inLaneOf(tenantId: string): boolean {
    return this.inLane.has(tenantId);
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

  /** Whether the tenant's runs wait for its quota's tokens here now (DispatchAdmission.outOfTokens). */
  outOfTokens(tenantId: string, now: number): boolean {
    return this.admission.outOfTokens(tenantId, now);
  }

  /** Whether the tenant's quota is known here (DispatchAdmission.quotaKnown: if not, it is asked for). */
  quotaKnown(tenantId: string): boolean {
    return this.admission.quotaKnown(tenantId);
  }

  /** A token of the run's tenant and task queue (DispatchAdmission): 0 when taken, else the ms until there could be one. */
  takeTokens(run: ClaimedRun, now: number, ahead = 0): number {
    return this.admission.takeTokens(run, now, ahead);
  }

  /**
   * Dispatches one run in a slot of its own (the caller checked `freeSlots`, or `freeOnTimeSlots`
   * for a run `onTime`, whose DISPATCHED mark then goes out alone rather than behind a burst's). Never throws.
   * `sendAt`: a run of the on-time lane (one of a tenant at a time: inLaneOf), maybe started ahead
   * of its instant — routed and marked now, its POST leaves at `sendAt` (its due instant), never before.
   */
  launch(run: ClaimedRun, onTime = false, sendAt?: number): void {
    if (sendAt !== undefined) this.inLane.add(run.tenantId);
    this.inHand.set(run.runId, run.attempt);
    this.inFlight++;
    this.inFlightByTenant.add(run.tenantId);
    this.metrics.slotsInUse.set(this.inFlight);
    const endTimer = this.metrics.slotHold.startTimer();
    this.dispatch(run, onTime, sendAt)
      .catch(async (err: Error) => {
        this.logger.error(`dispatch failed: ${err.message}`, { tenantId: run.tenantId, runId: run.runId, ...traceFields(run.traceParent) }, err.stack);
        // A run not sent yet goes back to the pool (RETRY_WAIT); a DISPATCHED one stays as it is:
        // it may be running (its callback or the watchdog's timeout will settle it). If the
        // database cannot take it back either (it is unreachable), the run is kept in memory
        // and tried again after the dispatch backoff: its row is CLAIMED by this live node,
        // whose lease renewals keep every other engine off it, so dropping it would strand it
        // (bench faults: 9–30 of 400 runs stuck CLAIMED after a 0.7 s MariaDB restart).
        // A run written already sent (markedAt) is left DISPATCHED too: it may have left; the lease renewer gives it back as a stray if so.
        const putBack = await this.setbacks.defer(run, ['CLAIMED'], `engine error: ${err.message}`).then(
          () => true,
          () => false,
        );
        if (!putBack) {
          const now = this.clock.now();
          this.keepForLater(run, now + dispatchBackoffMs(now - run.instant, Math.random));
        }
      })
      .finally(() => {
        endTimer();
        if (sendAt !== undefined) this.inLane.delete(run.tenantId);
        this.inHand.delete(run.runId);
        this.inFlight--;
        this.inFlightByTenant.remove(run.tenantId);
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
    // The held ACCEPTED marks are written now, not at the end of their hold.
    this.marks.writeHeld();
    await Promise.all([...this.ackWrites.values()]);
  }

  /**
   * One run's walk: route (DispatchRouter) → start (RunStart: concurrency policy, DISPATCHED, or
   * the shards of a fan-out run) → send (DispatchSender) → what the verdict means for the run
   * (DispatchMarks: ACCEPTED; DispatchSetbacks: deferred or failed).
   */
  private async dispatch(run: ClaimedRun, onTime: boolean, sendAt: number | undefined): Promise<void> {
    const tenant = await this.tenants.get(run.tenantId);
    if (!tenant) return this.setbacks.defer(run, [heldAs(run)], `tenant ${run.tenantId} not found`);
    const route = await this.router.route(run, tenant);
    switch (route.kind) {
      case 'PINNED_GONE':
        this.metrics.dispatchFailures.inc({ reason: 'NO_EXECUTOR' });
        return this.setbacks.fail(run, 'CLAIMED', `executor ${route.executorId} of this broadcast is not UP`);
      case 'NO_EXECUTOR':
        this.metrics.dispatchFailures.inc({ reason: 'NO_EXECUTOR' });
        return this.setbacks.defer(run, [heldAs(run)], route.reason);
      case 'FAN_OUT':
        return this.fanOut(run, tenant, route.candidates);
      case 'HELD_BACK':
        // The slot is free again, and the run's tokens go back to its buckets: it takes them anew when it comes round.
        this.admission.refund(run, this.clock.now());
        return;
      case 'SEND':
        return this.send(run, tenant, route, onTime, sendAt);
    }
  }

  /**
   * A run before its instant is sent ahead with it (`startAt`) to an executor that starts it then
   * (protocol 2); to another one — the routing table changed since it came due ahead — its POST
   * leaves at the instant (`sendAt`), as the on-time lane's does.
   */
  private async send(run: ClaimedRun, tenant: SigningTenant, route: { candidates: RoutedExecutor[] }, onTime: boolean, sendAt: number | undefined): Promise<void> {
    let sending = false;
    const launchedAt = this.clock.now();
    const ahead = this.mayGoAhead(run) && run.instant > launchedAt && run.instant - launchedAt <= MAX_START_IN_MS && route.candidates[0].protocolVersion >= STARTS_AT_INSTANT_FROM;
    const startAt = ahead ? run.instant : undefined;
    if (ahead) sendAt = undefined;
    else if (sendAt === undefined && run.instant > launchedAt) sendAt = run.instant;
    try {
      const start = await this.runStart.start(run, { kind: 'SEND', executorId: route.candidates[0].executorId, sendAt, startAt }, onTime);
      // Taken unclaimed and claimed by a peer before its mark: the claimer claims the tenant's next wake-ups behind a line (ClaimerService.readNamed).
      if (start.kind === 'LOST' && run.unclaimed) this.pace.lostUnclaimed(run.tenantId, this.clock.now());
      if (start.kind !== 'DISPATCHED') return;
      if (onTime) this.lead.record(this.clock.now() - launchedAt);
      this.started(run, { ...start, at: Math.max(start.at, startAt ?? sendAt ?? this.clock.now()) }, tenant);
      const released = this.slotHold.untilReleased(run);
      sending = true;
      const verdict = await this.sender.send(run, tenant, route.candidates, sendAt, startAt);
      if (verdict.kind === 'ACCEPTED') {
        this.registry.noteAccepted(verdict.executorId);
        const taker = route.candidates.find((c) => c.executorId === verdict.executorId);
        if (taker) this.attempts.hold(run, taker, verdict.at);
        // A run sent ahead was handed over for its instant: its timeline and its timeout start there.
        this.recordAck(run, Math.max(verdict.leftAt, startAt ?? 0), Math.max(verdict.at, startAt ?? 0));
        this.pace.accepted(run.tenantId, verdict.at);
        this.metrics.runsFired.inc();
        if (startAt !== undefined) this.metrics.runsSentAhead.inc();
        if (released) await released;
      } else if (verdict.kind === 'REFUSED') {
        await this.noneTookIt(run, verdict.refusals);
      }
    } finally {
      // Admitted but never sent (skipped, lost, an error): the room reserved is given back.
      if (!sending) this.router.unreserve(route);
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
    this.claimSignal.due(run.tenantId);
    this.started(run, start, tenant);
    this.logger.log(`run ${run.runId} fanned out into ${shards.length} shard(s) (${run.fanOut.mode})`, { tenantId: run.tenantId, runId: run.runId, ...traceFields(run.traceParent) });
    if (leftOut.length > 0) {
      const named = leftOut.slice(0, 20).join(', ') + (leftOut.length > 20 ? ', …' : '');
      this.logger.warn(`run ${run.runId}: ${leftOut.length} UP executor(s) beyond the ${shards.length}-shard cap got no shard (executor ids ${named})`, { tenantId: run.tenantId, runId: run.runId, ...traceFields(run.traceParent) });
    }
  }

  /** A run has started (sent, or fanned out): the runs REPLACE cancelled get their abort, and its lateness is measured. */
  private started(run: ClaimedRun, start: { at: number; replaced: readonly ExecutingRunRow[] }, tenant: SigningTenant): void {
    for (const replaced of start.replaced) this.abort(tenant, replaced, run.taskId, 'REPLACED');
    this.metrics.lateness.observe(Math.max(0, start.at - run.lateFrom) / 1000);
  }

  /**
   * DISPATCHED → ACCEPTED, without holding the slot: the executor has the run, which is all the
   * slot waited for (MTHPT: the engine is free again at the ack). The mark is bookkeeping — it
   * re-bases the timeout — held BATON_ACK_HOLD_MS (a run ended meanwhile has it written with its outcome) and joined
   * with the other slots' marks; if it cannot be written the run
   * stays DISPATCHED and its callback ends it as usual. Still DISPATCHED at two lease renewals
   * after the mark gave up, it is a stray (LeaseRenewerService): given back, and sent to the same
   * executor again, which de-duplicates.
   */
  private recordAck(run: ClaimedRun, sentAt: number, at: number): void {
    const write: Promise<void> = this.marks
      .markAccepted(run, sentAt, at)
      .catch((err: Error) => this.logger.warn(`ACCEPTED mark not written: ${err.message}`, { tenantId: run.tenantId, runId: run.runId, ...traceFields(run.traceParent) }))
      .finally(() => this.ackWrites.delete(run.runId));
    this.ackWrites.set(run.runId, write);
  }

  /**
   * Every candidate refused or failed. All of them REJECTED it (e.g. 404 unknown handler): a
   * failed attempt, which the task's retry policy settles, with a DISPATCH_REJECTED alarm. All of
   * them busy (429: none took it, and the credit gate now counts them full): kept in hand (CLAIMED
   * again) and held back until one has room, as a run admitted without room is. Otherwise
   * (unreachable, no answer, some rejection): deferred after the dispatch backoff, same attempt,
   * with DISPATCH_REJECTED if some executor rejected it, still pointing at one that gave no answer.
   */
  private async noneTookIt(run: ClaimedRun, refusals: readonly Refusal[]): Promise<void> {
    if (refusals.length > 0 && refusals.every((r) => r.answer.kind === 'BUSY')) {
      if (await this.setbacks.keepInHand(run)) this.keepForLater({ ...run, unclaimed: false, markedAt: undefined }, this.clock.now());
      return;
    }
    const describe = refusals.map(describeRefusal).join('; ');
    const rejected = refusals.filter((r) => r.answer.kind === 'REJECTED');
    if (rejected.length > 0 && rejected.length === refusals.length) {
      return this.setbacks.fail(run, 'DISPATCHED', `rejected by every executor: ${describe}`, 'DISPATCH_REJECTED');
    }
    const unanswered = refusals.find((r) => r.answer.kind === 'UNKNOWN');
    await this.setbacks.defer(run, ['DISPATCHED'], `no executor took it: ${describe}`, {
      rejection: rejected.length > 0 ? describe : null,
      executorId: unanswered?.executor.executorId ?? null,
    });
  }

  private abort(tenant: SigningTenant, run: ExecutingRunRow, taskId: number, reason: 'REPLACED' | 'CANCELLED'): void {
    if (!run.executorUrl) return;
    void this.client.abort(run.executorUrl, tenant, { runId: run.runId, attempt: run.attempt, reason }, taskId).then((status) => {
      if (status === null || status >= 500) this.logger.warn(`abort at ${run.executorUrl}: ${status ?? 'no answer'}`, { tenantId: tenant.id, runId: run.runId, ...traceFields(run.traceParent) });
    });
  }

}

/** The state of a held run's row before its start: CLAIMED, or DISPATCHED for one written already sent (ClaimedRun.markedAt). */
function heldAs(run: ClaimedRun): 'CLAIMED' | 'DISPATCHED' {
  return run.markedAt === undefined ? 'CLAIMED' : 'DISPATCHED';
}

function describeRefusal({ executor, answer }: Refusal): string {
  if (answer.kind === 'REJECTED') return `${executor.url}: ${answer.status} ${answer.reason} ${answer.message}`.trim();
  if (answer.kind === 'BUSY') return `${executor.url}: 429 busy`;
  if (answer.kind === 'UNKNOWN') return `${executor.url}: no answer, may have started it (${answer.message})`;
  return `${executor.url}: ${answer.status === null ? '' : `${answer.status} `}${answer.message}`;
}
