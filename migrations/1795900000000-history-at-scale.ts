import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Run history at scale (issue 13):
 *
 * - `run_rollups`: per-minute and per-hour statistics by tenant, task and ended state, with
 *   duration / lateness / retry-wait histograms; the statistics read these instead of the runs
 *   (24 h of 1,000,000 runs took 2.5 s to count from the runs table).
 * - `history_cursors`: each tenant's progress of the engines' history job (rollups, log purge)
 *   and the lease that gives the job to one engine at a time.
 * - `retention_policies`: how long a tenant keeps its runs, logs and alarms, and per-task
 *   overrides (task 0 is the tenant's own row). No row: the cluster's defaults.
 * - `ix_runs_tenant_finished` (tenant_id, finished_at): the job reads "runs of T that ended in
 *   this minute" and purges "runs of T that ended before X" through it; its NULL range is the
 *   tenant's runs not ended yet. Built online by MariaDB/MySQL (in-place ADD INDEX).
 * - `ix_runs_tenant_filter` (tenant_id, state, cause, scheduled_at) and `ix_runs_task_filter`
 *   (task_id, state, cause, scheduled_at), the latter replacing ix_runs_task_state (task_id,
 *   state), its prefix: the console's run list filtered by state and/or cause reads one ordered
 *   range per (state, cause) pair and stops at the page (`GET /api/runs?cause=MANUAL` read all
 *   1,000,000 runs of a tenant through ix_runs_tenant_time: 1.6 s).
 */
export class HistoryAtScale1795900000000 implements MigrationInterface {
  name = 'HistoryAtScale1795900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const bigint = (name: string, more: { isNullable?: boolean; isPrimary?: boolean } = {}) => ({ name, type: 'bigint', ...more });
    const int = (name: string, more: { isNullable?: boolean; isPrimary?: boolean } = {}) => ({ name, type: 'integer', ...more });
    const tenant = { name: 'tenant_id', type: 'varchar', length: '64', isPrimary: true };
    await queryRunner.createTable(
      new Table({
        name: 'run_rollups',
        columns: [
          tenant,
          int('task_id', { isPrimary: true }),
          int('span_ms', { isPrimary: true }),
          bigint('bucket_start', { isPrimary: true }),
          int('succeeded'),
          int('failed'),
          int('timed_out'),
          int('cancelled'),
          int('skipped'),
          { name: 'duration_hist', type: 'text' },
          { name: 'lateness_hist', type: 'text' },
          { name: 'retry_wait_hist', type: 'text' },
        ],
      }),
    );
    await queryRunner.createIndex('run_rollups', new TableIndex({ name: 'ix_run_rollups_age', columnNames: ['tenant_id', 'span_ms', 'bucket_start'] }));
    await queryRunner.createTable(
      new Table({
        name: 'history_cursors',
        columns: [
          tenant,
          bigint('rolled_until'),
          bigint('settled_until'),
          bigint('logs_purged_until'),
          bigint('purge_position'),
          { name: 'worker', type: 'varchar', length: '64', isNullable: true },
          bigint('worker_until'),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'retention_policies',
        columns: [
          tenant,
          int('task_id', { isPrimary: true }),
          bigint('runs_ms', { isNullable: true }),
          bigint('logs_ms', { isNullable: true }),
          bigint('alarms_ms', { isNullable: true }),
          int('min_runs_kept', { isNullable: true }),
          bigint('updated_at'),
        ],
      }),
    );
    await queryRunner.createIndex('runs', new TableIndex({ name: 'ix_runs_tenant_finished', columnNames: ['tenant_id', 'finished_at'] }));
    await queryRunner.createIndex('runs', new TableIndex({ name: 'ix_runs_tenant_filter', columnNames: ['tenant_id', 'state', 'cause', 'scheduled_at'] }));
    await queryRunner.createIndex('runs', new TableIndex({ name: 'ix_runs_task_filter', columnNames: ['task_id', 'state', 'cause', 'scheduled_at'] }));
    await queryRunner.dropIndex('runs', 'ix_runs_task_state');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex('runs', new TableIndex({ name: 'ix_runs_task_state', columnNames: ['task_id', 'state'] }));
    await queryRunner.dropIndex('runs', 'ix_runs_task_filter');
    await queryRunner.dropIndex('runs', 'ix_runs_tenant_filter');
    await queryRunner.dropIndex('runs', 'ix_runs_tenant_finished');
    await queryRunner.dropTable('retention_policies');
    await queryRunner.dropTable('history_cursors');
    await queryRunner.dropTable('run_rollups');
  }
}
