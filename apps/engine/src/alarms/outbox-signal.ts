import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { DataSource, type EntityManager, type EntitySubscriberInterface, type TransactionCommitEvent, type TransactionRollbackEvent } from 'typeorm';

/**
 * Wakes the outbox relay when an alarm this process wrote is committed, so it goes out within
 * milliseconds instead of at the relay's next poll. Alarms.raise notes the transaction (its
 * query runner); a TypeORM subscriber on the data source calls the listeners after that
 * transaction commits (and forgets it after a rollback). Alarms written by other engines are
 * found by the relay's poll.
 */
@Injectable()
export class OutboxSignal implements OnModuleInit, OnModuleDestroy {
  private readonly wrote = new WeakSet<object>();
  private readonly listeners = new Set<() => void>();
  private readonly subscriber: EntitySubscriberInterface = {
    afterTransactionCommit: (event: TransactionCommitEvent) => {
      if (this.wrote.delete(event.queryRunner)) this.fire();
    },
    afterTransactionRollback: (event: TransactionRollbackEvent) => {
      this.wrote.delete(event.queryRunner);
    },
  };

  constructor(private readonly dataSource: DataSource) {}

  onModuleInit(): void {
    this.dataSource.subscribers.push(this.subscriber);
  }

  onModuleDestroy(): void {
    const i = this.dataSource.subscribers.indexOf(this.subscriber);
    if (i >= 0) this.dataSource.subscribers.splice(i, 1);
  }

  /** An alarm row was written with this manager: signal once its transaction commits. */
  noteAlarm(manager: EntityManager): void {
    if (manager.queryRunner?.isTransactionActive) this.wrote.add(manager.queryRunner);
    else this.alarmsWritten();
  }

  /** Alarm rows were written outside a transaction (committed already): signal now. */
  alarmsWritten(): void {
    queueMicrotask(() => this.fire());
  }

  /** Called after each commit that wrote alarms. */
  onAlarmsCommitted(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private fire(): void {
    for (const l of this.listeners) l();
  }
}
