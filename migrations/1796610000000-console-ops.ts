import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * The daily work of an operator (issue 24).
 *
 * 1. `run_attempts`: one row per attempt of a run that ended and was retried, written by
 *    retryRunAttempt in the transaction that moves the run to its next attempt (the run row is
 *    retried in place, so it holds the latest attempt only). The latest attempt stays on the run.
 *    Key (run_id, attempt): a run's attempts in order; purged with their run.
 * 2. `runs.first_dispatched_at` BIGINT NULL: when the first attempt went out, kept by a retry
 *    (the row's dispatched_at is the latest attempt's). Lateness is the first attempt's, as the
 *    docs/MANUAL.md defines it: a retried run's lateness no longer includes its backoff, nor goes missing.
 * 3. `users.language` / `users.time_zone` / `users.theme` NULL: a console user's preferences
 *    (null: the browser's).
 * 4. `executors.stopped_at` BIGINT NULL: when the executor stopped gracefully (its last heartbeat
 *    said draining, nothing in flight); such an executor is DOWN without an EXECUTOR_DOWN alarm,
 *    and its return raises no EXECUTOR_UP either. Cleared when it heartbeats again.
 */
export class ConsoleOps1796610000000 implements MigrationInterface {
  name = 'ConsoleOps1796610000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = queryRunner.connection.options.type === 'better-sqlite3' || queryRunner.connection.options.type === 'sqlite';
    await queryRunner.createTable(
      new Table({
        name: 'run_attempts',
        columns: [
          { name: 'id', type: sqlite ? 'integer' : 'bigint', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'tenant_id', type: 'varchar', length: '64' },
          { name: 'run_id', type: 'bigint' },
          { name: 'attempt', type: 'integer' },
          { name: 'state', type: 'varchar', length: '16' },
          { name: 'executor_id', type: 'integer', isNullable: true },
          { name: 'due_at', type: 'bigint' },
          { name: 'dispatched_at', type: 'bigint', isNullable: true },
          { name: 'accepted_at', type: 'bigint', isNullable: true },
          { name: 'started_at', type: 'bigint', isNullable: true },
          { name: 'finished_at', type: 'bigint', isNullable: true },
          { name: 'error', type: 'text', isNullable: true },
          { name: 'ended_at', type: 'bigint' },
        ],
        indices: [new TableIndex({ name: 'uq_run_attempts_run', columnNames: ['run_id', 'attempt'], isUnique: true })],
      }),
    );
    // Plain ALTERs: TypeORM's addColumn rebuilds the table on SQLite (and the runs table is the big one).
    await queryRunner.query('ALTER TABLE runs ADD COLUMN first_dispatched_at BIGINT NULL');
    await queryRunner.query('ALTER TABLE users ADD COLUMN language VARCHAR(16) NULL');
    await queryRunner.query('ALTER TABLE users ADD COLUMN time_zone VARCHAR(64) NULL');
    await queryRunner.query('ALTER TABLE users ADD COLUMN theme VARCHAR(8) NULL');
    await queryRunner.query('ALTER TABLE executors ADD COLUMN stopped_at BIGINT NULL');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE executors DROP COLUMN stopped_at');
    await queryRunner.query('ALTER TABLE users DROP COLUMN theme');
    await queryRunner.query('ALTER TABLE users DROP COLUMN time_zone');
    await queryRunner.query('ALTER TABLE users DROP COLUMN language');
    await queryRunner.query('ALTER TABLE runs DROP COLUMN first_dispatched_at');
    await queryRunner.dropTable('run_attempts');
  }
}
