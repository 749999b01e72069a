import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { afterCommit } from '@baton/persistence';

/**
 * Wakes the outbox relay when an alarm this process wrote is committed, so it goes out within
 * milliseconds instead of at the relay's next poll. Alarms.raise notes the transaction (its
 * manager); the listeners are called once it commits (afterCommit: never after a rollback).
 * Alarms written by other engines are found by the relay's poll.
 */
@Injectable()
export class OutboxSignal {
  private readonly listeners = new Set<() => void>();

  /** Called after each commit that wrote alarms. */
  onAlarmsCommitted(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** An alarm row was written with this manager: signal once its transaction commits (at once when it was autocommitted). */
  noteAlarm(manager: EntityManager): void {
    afterCommit(manager, () => this.alarmsWritten());
  }

  /** Alarm rows were written outside a transaction (committed already): signal now. */
  alarmsWritten(): void {
    queueMicrotask(() => this.fire());
  }

  private fire(): void {
    for (const l of this.listeners) l();
  }
}
