import { Column, Entity, PrimaryColumn } from 'typeorm';
import { millis } from './columns';

/**
 * Where the history job of one tenant stands (rollups and purge), and which engine does it now:
 * one engine at a time per tenant, by a lease on this row (worker, worker_until), so engines of a
 * cluster share the tenants between them instead of all doing the same work.
 */
@Entity({ name: 'history_cursors' })
export class HistoryCursorEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  /** Minute rollups are computed for runs that ended before this (epoch ms, a whole minute). */
  @Column({ name: 'rolled_until', type: 'bigint', transformer: millis })
  rolledUntil!: number;

  /** …and computed again, to take in ends committed late, before this; runs are purged only below it. */
  @Column({ name: 'settled_until', type: 'bigint', transformer: millis })
  settledUntil!: number;

  /** The logs of runs that ended before this are purged. */
  @Column({ name: 'logs_purged_until', type: 'bigint', transformer: millis })
  logsPurgedUntil!: number;

  /**
   * Where the purge's sweep over the tenant's ended runs (by finished_at) goes on from: runs kept
   * for now (a task keeping more, the newest N of a task, a live flow) are passed over, and the
   * sweep starts again from 0 once it reaches the cutoff.
   */
  @Column({ name: 'purge_position', type: 'bigint', transformer: millis })
  purgePosition!: number;

  /**
   * When the history job next purges the tenant (0: at its next turn). Between purges the job
   * visits the tenant only when it has ended runs to roll up.
   */
  @Column({ name: 'purge_due_at', type: 'bigint', default: 0, transformer: millis })
  purgeDueAt!: number;

  /** The engine node holding the lease, or null. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  worker!: string | null;

  @Column({ name: 'worker_until', type: 'bigint', transformer: millis })
  workerUntil!: number;
}
