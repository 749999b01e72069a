import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { CLOCK, type Clock } from '@baton/domain';
import { CalendarQueue, PramResizePolicy, type QueueHandle } from '@baton/scheduling';
import type { ClaimedRun } from '../common/claimed-run';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { EngineMetrics } from '../metrics/engine-metrics';
import { Dispatcher } from './dispatcher';
import { TENANT_READ_WAIT_MS } from './dispatch-admission';
import { ReadyLine } from './ready-line';
import { startsByMark } from './starts-by-mark';
import { taskKey, TenantTally } from './tenant-tally';

/**
 * When a held run comes due: `ahead` before its instant, and not before the end of a dispatch
 * back-off (its dueAt, when a deferral moved it off the instant) — the back-off delays the send;
 * the start stays at the instant, which the send carries (startInMs) or waits for (sendAt).
 */
function comesDueAt(run: ClaimedRun, ahead: number): number {
  const backOffEnd = run.dueAt === run.instant ? -Infinity : run.dueAt;
  return Math.max(backOffEnd, run.instant - ahead);
}

/** setTimeout's longest delay is 2^31 − 1 ms; further timers are re-armed on the way. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The runs this node has claimed, held in memory until their due millisecond.
 *
 * A calendar queue (Brown, with PRAM's Markov-forecast resize policy; libs/scheduling) keyed by
 * (due time, priority): within one millisecond higher priority fires first, then FIFO. ONE timer
 * is armed, for the earliest due time — not a poll: a run fires when its millisecond comes,
 * whatever the claim interval. On the timer (and whenever a dispatch slot frees up) `pump`
 * moves the runs that are due into the ready line (ready-line.ts) and takes them from it — the
 * on-time lane first (a run due alone for its tenant and still on time, in any free slot), then
 * the tenants in turn into the general slots (each its claim share of runs, oldest first; a
 * tenant leaves two of them for each other tenant here: Dispatcher.mayTakeSlot), the
 * newest still on time into the slots reserved for on-time work but the last — and, per run:
 * - takes a token of its tenant's bucket (and its task's, when tasks are capped) — if there is none, the run goes
 *   back into the queue at the instant the token will be there (runs of the same buckets
 *   waiting in one pump are spread at the refill rate, not all retried at the same instant);
 * - needs a free dispatch slot — with none, due runs stay queued until a slot is released;
 * - is handed to the Dispatcher.
 *
 * The on-time lane also starts a run **ahead of its instant** (startAhead): the head of the queue,
 * due within the lane's lead (OnTimeLead: what the lane's recent starts took, ≤ 100 ms), whose
 * tenant has no run in the ready line nor in the lane, is routed and marked DISPATCHED before its
 * instant and sent at it — the mark's commit, which a burst's writes make 20–80 ms slow, is
 * then off its path. One run of a tenant at a time: a burst's first run may go this way, the
 * rest of it goes the general way.
 *
 * A run its executors start at its instant themselves (protocol 2; Dispatcher.sendsAhead) comes
 * due BATON_SEND_AHEAD_MS before its instant and is sent then, with its instant: a burst due at T
 * is claimed, marked, sent and acknowledged before T, and starts on the executors' clocks.
 *
 * `drain()` (shutdown) stops everything and hands back what was not dispatched, for the node to
 * release. Runs being dispatched at that moment finish their dispatch.
 */
@Injectable()
export class DueQueue implements OnModuleDestroy {
  private readonly queue: CalendarQueue<ClaimedRun>;
  private readonly handles = new Map<number, QueueHandle>();
  private readonly ready = new ReadyLine();
  /** Runs of each tenant in the queue or the ready line. */
  private readonly tally = new TenantTally();
  /** The same by task (taskKey). */
  private readonly taskTally = new TenantTally();
  private releasedListener: (tenantId: string) => void = () => undefined;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly shareOf = (tenantId: string) => this.dispatcher.shareOf(tenantId);
  private readonly mayTakeSlot = (tenantId: string) => this.dispatcher.mayTakeSlot(tenantId, this.tally.othersThan(tenantId));

  private readonly sendAheadMs: number;

  constructor(
    @Inject(ENGINE_CONFIG) config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly metrics: EngineMetrics,
    private readonly dispatcher: Dispatcher,
  ) {
    this.sendAheadMs = config.sendAheadMs;
    this.queue = new CalendarQueue<ClaimedRun>({ resizePolicy: new PramResizePolicy({ capacity: Math.max(1, config.maxHeld) }) });
    dispatcher.onSlotFreed(() => this.pump());
    dispatcher.onKeepForLater((run, at) => {
      if (this.stopped) return; // shutting down: the node releases what it holds, this run's row included
      this.enqueue(run, at);
      this.metrics.runsHeld.set(this.queue.size + this.ready.size);
      this.pump();
    });
  }

  /** Whether it takes runs (false once stopping: the node is shutting down). */
  get accepting(): boolean {
    return !this.stopped;
  }

  /** Runs held, not yet dispatched (due, or held back for want of room on an executor). */
  get held(): number {
    return this.queue.size + this.ready.size + this.dispatcher.heldBack;
  }

  /** Runs of one tenant held, not yet dispatched (queue, ready line, held back for executor room). */
  heldOf(tenantId: string): number {
    return this.tally.of(tenantId) + this.dispatcher.heldBackOf(tenantId);
  }

  heldOfTask(tenantId: string, taskId: number): number {
    return this.taskTally.of(taskKey(tenantId, taskId)) + this.dispatcher.heldBackOfTask(tenantId, taskId);
  }

  /** Runs of one tenant due and waiting for a slot (the ready line) or for room on an executor. */
  waitingOf(tenantId: string): number {
    return this.ready.countOf(tenantId) + this.dispatcher.heldBackOf(tenantId);
  }

  paced(tenantId: string): boolean {
    return this.tally.of(tenantId) > 0 && this.dispatcher.outOfTokens(tenantId, this.clock.now());
  }

  /** Whether the run is in this node's hands: held here, or with the dispatcher (being sent, or held back). */
  holds(runId: number): boolean {
    return this.handles.has(runId) || this.ready.has(runId) || this.dispatcher.holds(runId);
  }

  /** The claimer's hook: a held run of this tenant went to the dispatcher. */
  onReleased(listener: (tenantId: string) => void): void {
    this.releasedListener = listener;
  }

  refreshRouting(): Promise<void> {
    return this.dispatcher.refreshRouting();
  }

  /**
   * Takes ownership of claimed runs (a run already held is replaced): each comes due at its instant,
   * or BATON_SEND_AHEAD_MS before it when its executors start it at its instant themselves
   * (Dispatcher.sendsAhead) — it then goes the way of any due run, and its executor holds it.
   * Never before its dueAt: a run deferred by a dispatch back-off waits it out, its instant unmoved.
   *
   * An attempt the dispatcher is sending already is not taken again: a wake-up's run read
   * unclaimed (RunClaims.readNamed) may be claimed by this node's claim turn before its mark, and
   * the two copies' marks both matched the row (CLAIMED by this node) when they went in one
   * statement — the run went to two executors (bench on-demand overloaded: 10–14 of 3,000 runs).
   * The copy in hand goes on; its mark moves the row whichever claim wrote it.
   */
  accept(claimed: ClaimedRun[]): void {
    const runs = claimed.filter((run) => !this.dispatcher.sends(run));
    for (const run of runs) this.enqueue(run, comesDueAt(run, this.dispatcher.sendsAhead(run) ? this.sendAheadMs : 0));
    this.metrics.runsHeld.set(this.queue.size + this.ready.size);
    this.dispatcher.prepare(runs);
    this.pump();
  }

  /** Stops firing and hands back every run still held (shutdown). */
  drain(): ClaimedRun[] {
    this.stop();
    const runs: ClaimedRun[] = [];
    runs.push(...this.ready.takeAll());
    for (let run = this.queue.dequeue(); run !== undefined; run = this.queue.dequeue()) runs.push(run);
    runs.push(...this.dispatcher.takeHeldBack());
    this.handles.clear();
    this.tally.clear();
    this.taskTally.clear();
    this.metrics.runsHeld.set(0);
    return runs;
  }

  /** Nest shutdown: no more firing; the held runs stay for drain() (called by the node before the data source closes). */
  onModuleDestroy(): void {
    this.stop();
  }

  private stop(): void {
    this.stopped = true;
    this.disarm();
  }

  private enqueue(run: ClaimedRun, at: number): void {
    const old = this.handles.get(run.runId);
    if (old !== undefined) this.queue.remove(old);
    const wasReady = this.ready.remove(run.runId);
    if (old === undefined && !wasReady) {
      this.tally.add(run.tenantId);
      this.taskTally.add(taskKey(run.tenantId, run.taskId));
    }
    this.handles.set(run.runId, this.queue.enqueue(run, at, run.priority));
  }

  /** Fires what is due, as far as tokens and slots allow, then re-arms the timer. */
  private pump(): void {
    if (this.stopped) return;
    this.disarm();
    const now = this.clock.now();
    const due: ClaimedRun[] = [];
    for (let at = this.queue.peekTime(); at !== undefined && at <= now; at = this.queue.peekTime()) {
      const run = this.queue.dequeue() as ClaimedRun;
      this.handles.delete(run.runId);
      due.push(run);
    }
    this.ready.pushAll(due);
    const waiting = new Map<string, number>();
    for (;;) {
      // The on-time lane first, in any free slot: a run due alone for its tenant leaves before a backlog's next run does.
      const alone = this.dispatcher.freeOnTimeSlots > 0 ? this.ready.takeAlone(now, (tenantId) => !this.dispatcher.inLaneOf(tenantId)) : undefined;
      const general = alone === undefined && this.dispatcher.freeSlots > 0;
      // The newest on time never takes the last slot kept for on-time work: that one waits for a run due alone. Else a
      // tenant whose backlog keeps coming due (each newest run on time) behind a slow-acking executor holds them all.
      const run = alone ?? (general ? this.ready.takeInTurn(this.shareOf, this.mayTakeSlot) : this.dispatcher.freeOnTimeSlots > 1 ? this.ready.takeNewestOnTime(now) : undefined);
      if (run === undefined) break;
      this.tally.remove(run.tenantId);
      this.taskTally.remove(taskKey(run.tenantId, run.taskId));
      // Its tenant's quota not read yet: it waits for the read, counted from now, so a run due later is still sent ahead.
      if (!this.dispatcher.quotaKnown(run.tenantId)) {
        this.enqueue(run, now + TENANT_READ_WAIT_MS);
        continue;
      }
      const line = `${run.tenantId}\u0000${run.taskId}`;
      const ahead = waiting.get(line) ?? 0;
      // A run sent ahead takes its tokens as of its instant: a rate limits starts, not sends. One
      // without a token then waits for it in the queue and is sent when it comes, not ahead.
      const at = Math.max(now, run.instant);
      const wait = this.dispatcher.takeTokens(run, at, ahead);
      if (wait > 0) {
        waiting.set(line, ahead + 1);
        this.enqueue(run, at + wait);
        continue;
      }
      this.dispatcher.launch(run, !general, alone === undefined ? undefined : run.instant);
      this.releasedListener(run.tenantId);
    }
    this.startAhead(now);
    this.metrics.runsHeld.set(this.queue.size + this.ready.size);
    this.arm(now);
  }

  /**
   * The on-time lane ahead of the instant: the queue's head, due within the lead, alone for its
   * tenant, in a free slot; its tokens are taken as of its instant, so a paced tenant is not sent faster.
   */
  private startAhead(now: number): void {
    const lead = this.dispatcher.onTimeLeadMs;
    for (let due = this.queue.peekTime(); due !== undefined && due <= now + lead && this.dispatcher.freeOnTimeSlots > 0; due = this.queue.peekTime()) {
      const run = this.queue.peek() as ClaimedRun;
      // A run sent ahead comes due before its instant: it goes then, the way of any due run.
      if (due < run.instant || !startsByMark(run) || this.ready.hasTenant(run.tenantId) || this.dispatcher.inLaneOf(run.tenantId) || this.dispatcher.takeTokens(run, due) > 0) return;
      this.queue.dequeue();
      this.handles.delete(run.runId);
      this.tally.remove(run.tenantId);
      this.taskTally.remove(taskKey(run.tenantId, run.taskId));
      this.dispatcher.launch(run, true, due);
      this.releasedListener(run.tenantId);
    }
  }

  /**
   * One timer for the earliest run not yet due (those due are in the ready line, which the next
   * released slot serves): it may be on time for a reserved slot while the general ones are busy.
   */
  private arm(now: number): void {
    const due = this.queue.peekTime();
    if (due === undefined || this.stopped) return;
    // At the lead before the head's instant (it may start ahead: startAhead), else at the instant.
    const ahead = due - this.dispatcher.onTimeLeadMs;
    const next = ahead > now ? ahead : due;
    // Node may run a timer up to a millisecond early by the wall clock (its loop time is cached):
    // pump then finds nothing due and re-arms for the remainder.
    this.timer = setTimeout(() => {
      this.timer = null;
      this.pump();
    }, Math.min(MAX_TIMER_MS, Math.max(0, next - now)));
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

