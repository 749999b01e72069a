import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { CLOCK, type Clock } from '@baton/domain';
import { CalendarQueue, PramResizePolicy, type QueueHandle } from '@baton/scheduling';
import type { ClaimedRun } from '../claimed-run';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { EngineMetrics } from '../metrics/engine-metrics';
import { Dispatcher } from './dispatcher';
import { ReadyLine } from './ready-line';
import { TenantTally } from './tenant-tally';

/** setTimeout's longest delay is 2^31 − 1 ms; further timers are re-armed on the way. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The runs this node has claimed, held in memory until their due millisecond.
 *
 * A calendar queue (Brown, with PRAM's Markov-forecast resize policy; libs/scheduling) keyed by
 * (due time, priority): within one millisecond higher priority fires first, then FIFO. ONE timer
 * is armed, for the earliest due time — not a poll: a run fires when its millisecond comes,
 * whatever the claim interval. On the timer (and whenever a dispatch slot frees up) `pump`
 * moves the runs that are due into the ready line (ready-line.ts) and takes them from it —
 * oldest first into the general slots, the newest still on time into the slots reserved for
 * on-time work — and, per run:
 * - takes a token of its tenant's and its task queue's bucket — if there is none, the run goes
 *   back into the queue at the instant the token will be there (runs of the same buckets
 *   waiting in one pump are spread at the refill rate, not all retried at the same instant);
 * - needs a free dispatch slot — with none, due runs stay queued until a slot is released;
 * - is handed to the Dispatcher.
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
  private releasedListener: (tenantId: string) => void = () => undefined;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    @Inject(ENGINE_CONFIG) config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly metrics: EngineMetrics,
    private readonly dispatcher: Dispatcher,
  ) {
    this.queue = new CalendarQueue<ClaimedRun>({ resizePolicy: new PramResizePolicy({ capacity: Math.max(1, config.maxHeld) }) });
    dispatcher.onSlotFreed(() => this.pump());
    dispatcher.onKeepForLater((run, at) => {
      if (this.stopped) return; // shutting down: the node releases what it holds, this run's row included
      this.enqueue(run, at);
      this.metrics.runsHeld.set(this.queue.size + this.ready.size);
      this.pump();
    });
  }

  /** Runs held, not yet dispatched (due, or held back for want of room on an executor). */
  get held(): number {
    return this.queue.size + this.ready.size + this.dispatcher.heldBack;
  }

  /** Runs of one tenant held, not yet dispatched (queue, ready line, held back for executor room). */
  heldOf(tenantId: string): number {
    return this.tally.of(tenantId) + this.dispatcher.heldBackOf(tenantId);
  }

  /** The claimer's hook: a held run of this tenant went to the dispatcher. */
  onReleased(listener: (tenantId: string) => void): void {
    this.releasedListener = listener;
  }

  /** Takes ownership of claimed runs: each fires at its dueAt (a run already held is replaced). */
  accept(runs: ClaimedRun[]): void {
    for (const run of runs) this.enqueue(run, run.dueAt);
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
    if (old === undefined && !wasReady) this.tally.add(run.tenantId);
    this.handles.set(run.runId, this.queue.enqueue(run, at, run.priority));
  }

  /** Fires what is due, as far as tokens and slots allow, then re-arms the timer. */
  private pump(): void {
    if (this.stopped) return;
    this.disarm();
    const now = this.clock.now();
    for (let due = this.queue.peekTime(); due !== undefined && due <= now; due = this.queue.peekTime()) {
      const run = this.queue.dequeue() as ClaimedRun;
      this.handles.delete(run.runId);
      this.ready.push(run);
    }
    const waiting = new Map<string, number>();
    for (;;) {
      const general = this.dispatcher.freeSlots > 0;
      const run = general ? this.ready.takeOldest() : this.dispatcher.freeOnTimeSlots > 0 ? this.ready.takeNewestOnTime(now) : undefined;
      if (run === undefined) break;
      this.tally.remove(run.tenantId);
      const line = `${run.tenantId}\u0000${run.taskId}`;
      const ahead = waiting.get(line) ?? 0;
      const wait = this.dispatcher.takeTokens(run, now, ahead);
      if (wait > 0) {
        waiting.set(line, ahead + 1);
        this.enqueue(run, now + wait);
        continue;
      }
      this.dispatcher.launch(run, !general);
      this.releasedListener(run.tenantId);
    }
    this.metrics.runsHeld.set(this.queue.size + this.ready.size);
    this.arm(now);
  }

  /**
   * One timer for the earliest run not yet due (those due are in the ready line, which the next
   * released slot serves): it may be on time for a reserved slot while the general ones are busy.
   */
  private arm(now: number): void {
    const next = this.queue.peekTime();
    if (next === undefined || this.stopped) return;
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
