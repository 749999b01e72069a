import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { addAlarmCounts, afterCommit, autocommitted } from '@baton/persistence';
import { Coalescer } from '@baton/scheduling';
import { OutboxSignal } from './outbox-signal';

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
  private readonly writes = new Coalescer<number, void>((ids) => this.write(ids));
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly signal: OutboxSignal,
  ) {}

  /** One repeat counted into alarm `id`, written once the transaction of `manager` commits (never if it rolls back). */
  add(manager: EntityManager, id: number): void {
    afterCommit(manager, () => {
      const written = this.writes.push(id).catch((err: unknown) => this.logger.warn(`a repeat of alarm ${id} was not counted: ${(err as Error).message}`));
      this.inFlight.add(written);
      void written.finally(() => this.inFlight.delete(written));
    });
  }

  /** Resolves once every repeat added so far is written (or given up). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /** The repeats not written yet go out before the data source closes. */
  beforeApplicationShutdown(): Promise<void> {
    return this.settled();
  }

  private async write(ids: number[]): Promise<void[]> {
    const counts = new Map<number, number>();
    for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
    await autocommitted(this.dataSource, (em) => addAlarmCounts(em, counts));
    this.signal.alarmsWritten(); // published again with their new counts
    return ids.map(() => undefined);
  }
}
