import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { CLOCK, type Clock } from '@baton/domain';
import { addAlarmCounts, afterCommit, autocommitted } from '@baton/persistence';
import { Coalescer } from '@baton/scheduling';
import { OutboxSignal } from './outbox-signal';

/**
 * An alarm whose count went up goes back to the outbox (published again with its new count) at
 * most this often from one engine; the repeats in between are written to its count at once and
 * published with the next. Each publish is a message on the tenant's topic, a pop-up update in
 * every console of the tenant and a POST to each of its webhook channels: a storm of failing runs
 * retried at once republished its one RETRYING alarm with every batch of repeats.
 */
export const COUNT_PUBLISH_EVERY_MS = 1_000;

/** Repeats of one alarm to add to its count (0: only the publish withheld from earlier ones). */
interface Repeat {
  id: number;
  repeats: number;
}

/**
 * The repeats counted into open alarms (the silence window: Alarms), written once the transaction
 * that reported each has committed, those that come together in one statement (Coalescer: group
 * commit, no timer).
 *
 * Why not in that transaction, as the alarm row itself is: every repeat of an alarm adds to ONE
 * row, so the transactions of all the failing runs of a task queued on its lock, each holding it
 * to its commit. In a tenant's storm of failing runs retried at once (bench failing-storm) that
 * wait was 10 ms of every retry's transaction, on each engine. Written after the commit, a
 * repeat holds the row for one autocommitted statement, and the repeats of a busy moment share
 * it. What this gives up: a count is a few milliseconds behind the change it reports, and a
 * process killed in between loses the repeats it had not written yet (never the alarm: its row
 * is written with the change).
 */
@Injectable()
export class AlarmCounts implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Alarms');
  private readonly writes = new Coalescer<Repeat, void>((repeats) => this.write(repeats));
  private readonly inFlight = new Set<Promise<void>>();
  /** Alarm id → when this engine last put it back into the outbox. */
  private readonly requeuedAt = new Map<number, number>();
  /** Alarms counted but not put back yet (within COUNT_PUBLISH_EVERY_MS of the last time), and the timer that will. */
  private readonly unpublished = new Set<number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly signal: OutboxSignal,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** One repeat counted into alarm `id`, written once the transaction of `manager` commits (never if it rolls back). */
  add(manager: EntityManager, id: number): void {
    afterCommit(manager, () => this.push({ id, repeats: 1 }));
  }

  /** Resolves once every repeat added so far is written and its alarm back in the outbox (or given up). */
  async settled(): Promise<void> {
    this.publishWithheld();
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /** The repeats not written yet go out before the data source closes. */
  beforeApplicationShutdown(): Promise<void> {
    return this.settled();
  }

  private push(repeat: Repeat): void {
    const written = this.writes.push(repeat).catch((err: unknown) => this.logger.warn(`${repeat.repeats} repeat(s) of alarm ${repeat.id} not counted: ${(err as Error).message}`));
    this.inFlight.add(written);
    void written.finally(() => this.inFlight.delete(written));
  }

  private async write(batch: Repeat[]): Promise<void[]> {
    const now = this.clock.now();
    const counts = new Map<number, number>();
    for (const { id, repeats } of batch) counts.set(id, (counts.get(id) ?? 0) + repeats);
    const requeue = new Set<number>();
    for (const id of counts.keys()) {
      const last = this.requeuedAt.get(id);
      if (last === undefined || now - last >= COUNT_PUBLISH_EVERY_MS) requeue.add(id);
      else this.unpublished.add(id);
    }
    await autocommitted(this.dataSource, (em) => addAlarmCounts(em, counts, requeue));
    for (const id of requeue) {
      this.unpublished.delete(id);
      this.requeuedAt.set(id, now);
    }
    this.forgetOld(now);
    if (requeue.size > 0) this.signal.alarmsWritten(); // published again with their new counts
    if (this.unpublished.size > 0 && this.timer === null) {
      this.timer = setTimeout(() => this.publishWithheld(), COUNT_PUBLISH_EVERY_MS);
      this.timer.unref();
    }
    return batch.map(() => undefined);
  }

  /** The alarms whose last repeats were withheld go back to the outbox now (no repeats added). */
  private publishWithheld(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const id of this.unpublished) {
      this.requeuedAt.delete(id); // due now
      this.push({ id, repeats: 0 });
    }
    this.unpublished.clear();
  }

  /** Requeue times older than the window decide nothing: the map holds only alarms counted into lately. */
  private forgetOld(now: number): void {
    for (const [id, at] of this.requeuedAt) if (now - at >= COUNT_PUBLISH_EVERY_MS && !this.unpublished.has(id)) this.requeuedAt.delete(id);
  }
}
