import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { CLOCK, type Clock } from '@baton/domain';
import { addAlarmCounts, afterCommit, autocommitted, republishAlarmsBehind } from '@baton/persistence';
import { Coalescer } from '@baton/scheduling';
import { OutboxSignal } from './outbox-signal';

/**
 * An alarm whose count went up goes back to the outbox (published again with its new count) at
 * most this often, whichever engines count into it: the repeats in between are written to its
 * count at once and published with the next. Each publish is a message on the tenant's topic, a
 * pop-up update in every console of the tenant and a POST to each of its webhook channels: a
 * storm of failing runs retried at once republished its one RETRYING alarm with every batch of
 * repeats — and, while each engine kept its own second, once a second per engine.
 */
export const COUNT_PUBLISH_EVERY_MS = 1_000;

/** Repeats of one alarm to add to its count. */
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
 *
 * The once-a-second bound is the row's: a count goes back to the outbox with its write unless the
 * alarm was published less than COUNT_PUBLISH_EVERY_MS before (by any engine's relay:
 * `published_at`); then this engine puts it back once that second is over, if no publish since
 * carried the count (`published_count`). The relay hands over the same way the alarms whose count
 * went up while it published them.
 */
@Injectable()
export class AlarmCounts implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Alarms');
  private readonly writes = new Coalescer<Repeat, void>((repeats) => this.write(repeats));
  private readonly inFlight = new Set<Promise<void>>();
  /** Alarms counted here whose count a publish of the last second left out: put back when the timer fires. */
  private readonly withheld = new Set<number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly signal: OutboxSignal,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** One repeat counted into alarm `id`, written once the transaction of `manager` commits (never if it rolls back). */
  add(manager: EntityManager, id: number): void {
    afterCommit(manager, () => this.track(this.writes.push({ id, repeats: 1 }).then(() => undefined), `1 repeat of alarm ${id} not counted`));
  }

  /** Resolves once every repeat added so far is written and its alarm back in the outbox, the withheld ones too without waiting for their second (or given up). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
    await this.republishWithheld(Number.MAX_SAFE_INTEGER);
  }

  /** The repeats not written yet go out before the data source closes. */
  beforeApplicationShutdown(): Promise<void> {
    return this.settled();
  }

  private track(work: Promise<void>, failure: string): void {
    const done = work.catch((err: unknown) => this.logger.warn(`${failure}: ${(err as Error).message}`));
    this.inFlight.add(done);
    void done.finally(() => this.inFlight.delete(done));
  }

  private async write(batch: Repeat[]): Promise<void[]> {
    const counts = new Map<number, number>();
    for (const { id, repeats } of batch) counts.set(id, (counts.get(id) ?? 0) + repeats);
    const behind = await autocommitted(this.dataSource, (em) => addAlarmCounts(em, counts, this.clock.now() - COUNT_PUBLISH_EVERY_MS));
    this.withhold(behind);
    if (behind.length < counts.size) this.signal.alarmsWritten(); // published again with their new counts
    return batch.map(() => undefined);
  }

  /** Alarms whose last publish left out some of their count: put back into the outbox once COUNT_PUBLISH_EVERY_MS is over, if no publish carried it by then. */
  withhold(ids: readonly number[]): void {
    for (const id of ids) this.withheld.add(id);
    if (this.withheld.size === 0 || this.timer !== null) return;
    this.timer = setTimeout(() => this.track(this.republishWithheld(this.clock.now() - COUNT_PUBLISH_EVERY_MS), 'withheld alarm counts not put back'), COUNT_PUBLISH_EVERY_MS);
    this.timer.unref();
  }

  /** The withheld alarms go back to the outbox if their last publish went out by `publishedBy` and did not carry their count; the rest wait again. */
  private async republishWithheld(publishedBy: number): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const ids = [...this.withheld];
    this.withheld.clear();
    if (ids.length === 0) return;
    let behind: number[];
    try {
      behind = await autocommitted(this.dataSource, (em) => republishAlarmsBehind(em, ids, publishedBy));
    } catch (err) {
      this.withhold(ids); // tried again in a second
      throw err;
    }
    this.withhold(behind);
    if (behind.length < ids.length) this.signal.alarmsWritten();
  }
}
