import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * Less index upkeep per run (issue 22: MariaDB CPU per run). A run's four state changes
 * (CLAIMED, DISPATCHED, ACCEPTED, its end) rewrite an entry in every index whose key holds
 * `state`; two of those indexes had no query that another index does not serve as well:
 *
 * - `ix_runs_load (state, tenant_id, due_at)` goes. A tenant's due runs are ranges of ix_runs_claim
 *   (engine_group, state, tenant_id, due_at, …) — the tenant's runs waiting are in its group (a
 *   move takes them along: moveTenantWaitingRuns) —, its held and in-flight runs ranges of
 *   ix_runs_tenant_filter (tenant_id, state, …), both read from the index alone and capped
 *   (load-queries/count-tenant-runs.ts); every tenant's oldest due run is one MIN dive per
 *   (tenant, state) into ix_runs_claim (load-queries/find-oldest-due.ts). Its loss also ends a bad
 *   plan: the console's run list filtered by state picked it (ref on (state, tenant), then a
 *   filesort of the tenant's runs in that state) instead of ix_runs_tenant_filter's ordered range.
 * - `ix_runs_executor (executor_id, state)` goes; `executor_id` becomes the last key part of
 *   `ix_runs_deadline (engine_group, state, deadline_at, executor_id)`. The reconciliation (runs
 *   executing on DOWN executors) was already planned from the executing runs of the node's groups
 *   (ix_runs_deadline's (engine_group, state) ranges) joined to executors by primary key; the
 *   executor now is in the index, so the runs of UP executors are passed over without a row read.
 *   executor_id only changes in the same statement as `state` (dispatch, retry), so the wider key
 *   costs no extra index writes.
 *
 * Per run, 8 index entry rewrites (of ~37) and 2 index inserts fewer. Plain CREATE/DROP INDEX
 * statements, the same on MySQL, MariaDB and SQLite; no table rebuild on SQLite, so ix_runs_claim
 * keeps its DESC key part.
 */
export class RunHotPathIndexes1797100000000 implements MigrationInterface {
  name = 'RunHotPathIndexes1797100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('runs', 'ix_runs_load');
    await queryRunner.dropIndex('runs', 'ix_runs_executor');
    await queryRunner.dropIndex('runs', 'ix_runs_deadline');
    await queryRunner.createIndex('runs', new TableIndex({ name: 'ix_runs_deadline', columnNames: ['engine_group', 'state', 'deadline_at', 'executor_id'] }));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('runs', 'ix_runs_deadline');
    await queryRunner.createIndex('runs', new TableIndex({ name: 'ix_runs_deadline', columnNames: ['engine_group', 'state', 'deadline_at'] }));
    await queryRunner.createIndex('runs', new TableIndex({ name: 'ix_runs_executor', columnNames: ['executor_id', 'state'] }));
    await queryRunner.createIndex('runs', new TableIndex({ name: 'ix_runs_load', columnNames: ['state', 'tenant_id', 'due_at'] }));
  }
}
