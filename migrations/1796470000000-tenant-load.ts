import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * Backlog you can see (issue 20 item 4):
 *
 * - `ix_runs_load (state, tenant_id, due_at)`: a tenant's load in index ranges only — due runs
 *   (state PENDING/RETRY_WAIT, tenant T, due_at ≤ now), held (CLAIMED, T), in flight
 *   (DISPATCHED/ACCEPTED, T) —, each counted from the index alone with a LIMIT (a capped count);
 *   and the oldest due run of every tenant in one loose index scan (`GROUP BY state, tenant_id`
 *   with `MIN(due_at)`: one dive per (state, tenant), whatever the backlog). No existing index
 *   has tenant and due time together: ix_runs_claim (engine_group, state, due_at, …) would read
 *   every tenant's due runs of the group and each row for its tenant; ix_runs_tenant_filter
 *   (tenant_id, state, cause, scheduled_at) has no due_at, so the oldest due run would be a walk
 *   over the whole backlog.
 * - `tenants.backlog_alarm_ms` INT NULL: the tenant's BACKLOG_LATE threshold (null: the engines'
 *   BATON_BACKLOG_ALARM_MS; 0: no such alarm for the tenant).
 * - `tenants.backlog_late_since` BIGINT NULL: when the BACKLOG_LATE episode going on was alarmed;
 *   set and cleared by guarded updates, so one engine of the cluster raises it.
 */
export class TenantLoad1796470000000 implements MigrationInterface {
  name = 'TenantLoad1796470000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE tenants ADD COLUMN backlog_alarm_ms INTEGER NULL');
    await queryRunner.query('ALTER TABLE tenants ADD COLUMN backlog_late_since BIGINT NULL');
    await queryRunner.createIndex('runs', new TableIndex({ name: 'ix_runs_load', columnNames: ['state', 'tenant_id', 'due_at'] }));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('runs', 'ix_runs_load');
    await queryRunner.query('ALTER TABLE tenants DROP COLUMN backlog_late_since');
    await queryRunner.query('ALTER TABLE tenants DROP COLUMN backlog_alarm_ms');
  }
}
