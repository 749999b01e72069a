import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EngineMetrics } from './engine-metrics';

/** What of mysql2's pool this reads: its `enqueue` event (no free connection, the request waits). */
interface EventedPool {
  on(event: 'enqueue', listener: () => void): unknown;
  off(event: 'enqueue', listener: () => void): unknown;
}

/**
 * Counts the statements that waited for a database connection (baton_engine_db_pool_waits_total):
 * mysql2's pool emits `enqueue` when every connection (connectionLimit, 20) is busy and a request
 * queues for one. An event, not a timer around every query: free when nothing waits. SQLite (the
 * embedded mode's one connection) has no pool: the counter stays 0.
 */
@Injectable()
export class DatabasePoolWaits implements OnModuleInit, OnModuleDestroy {
  private pool: EventedPool | null = null;
  private readonly waited = () => this.metrics.dbPoolWaits.inc();

  constructor(
    private readonly dataSource: DataSource,
    private readonly metrics: EngineMetrics,
  ) {}

  onModuleInit(): void {
    const pool = (this.dataSource.driver as { pool?: Partial<EventedPool> }).pool;
    if (typeof pool?.on !== 'function' || typeof pool.off !== 'function') return;
    this.pool = pool as EventedPool;
    this.pool.on('enqueue', this.waited);
  }

  onModuleDestroy(): void {
    this.pool?.off('enqueue', this.waited);
    this.pool = null;
  }
}
