import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Concurrency and rate keys (issue 42, part 2):
 * - `tasks.key_concurrency`, `tasks.key_rate` (TEXT, JSON; NULL: no bound): the task's
 *   `concurrency` { key, limit, onLimit } and `rateLimit` { key, perSecond, burst }.
 * - `runs.run_key` VARCHAR(160) NULL: the run's key value, written when a claim admits or holds
 *   it; NULL for runs of unkeyed tasks and runs not claimed yet.
 *   `ix_runs_key (state, tenant_id, task_id, run_key)`: a key's going runs are counted, and its
 *   oldest held runs found, in one short range of this index — never a scan of the task's runs.
 * - `run_keys`: one row per (tenant, task, key) that ever had a run admitted. Its row lock is
 *   the key's own mutex: admissions and releases of one key take it in turn, other keys never
 *   wait for it. It also stores the key's token bucket (`tokens_milli`, thousandths of a token,
 *   as of `refilled_at`).
 */
export class RunKeys1797800000000 implements MigrationInterface {
  name = 'RunKeys1797800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = queryRunner.connection.options.type === 'better-sqlite3' || queryRunner.connection.options.type === 'sqlite';
    // SQLite names the entities' 'int' INTEGER: the same word here, so the schemas compare equal.
    const int = sqlite ? 'integer' : 'int';
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts for why not addColumn).
    await queryRunner.query('ALTER TABLE tasks ADD COLUMN key_concurrency TEXT NULL');
    await queryRunner.query('ALTER TABLE tasks ADD COLUMN key_rate TEXT NULL');
    await queryRunner.query('ALTER TABLE runs ADD COLUMN run_key VARCHAR(160) NULL');
    await queryRunner.createIndex('runs', new TableIndex({ name: 'ix_runs_key', columnNames: ['state', 'tenant_id', 'task_id', 'run_key'] }));
    await queryRunner.createTable(
      new Table({
        name: 'run_keys',
        columns: [
          { name: 'tenant_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'task_id', type: int, isPrimary: true },
          { name: 'key_value', type: 'varchar', length: '160', isPrimary: true },
          { name: 'tokens_milli', type: int, isNullable: true },
          { name: 'refilled_at', type: 'bigint', isNullable: true },
        ],
      }),
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('run_keys');
    await queryRunner.dropIndex('runs', 'ix_runs_key');
    for (const [table, column] of [['runs', 'run_key'], ['tasks', 'key_rate'], ['tasks', 'key_concurrency']]) await queryRunner.query(`ALTER TABLE ${table} DROP COLUMN ${column}`);
  }
}
