import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Debounce and throttle per key (issue 42, part 3):
 * - `tasks.key_debounce`, `tasks.key_throttle` (TEXT, JSON; NULL: none): the task's `debounce`
 *   { key, quietMs, maxWaitMs } and `throttle` { key, limit, periodMs, keep }.
 * - `runs.window_until` BIGINT NULL: a COALESCING run's window end (its burst's first submission
 *   + maxWaitMs, or a throttle period's end): each submission of its key moves due_at, never past
 *   it. The open window of a (task, key) is found by the run's fire key (`w:<digest of the key>`)
 *   in the existing unique key uq_runs_task_fire_key: no new index.
 * - `run_keys.throttle_started_at`, `throttle_count`, `throttle_trailing_at` (NULL: never
 *   throttled): a throttled key's current period (domain ThrottlePeriod), read and written under
 *   the key row's lock.
 */
export class KeyWindows1798100000000 implements MigrationInterface {
  name = 'KeyWindows1798100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = queryRunner.connection.options.type === 'better-sqlite3' || queryRunner.connection.options.type === 'sqlite';
    // SQLite names the entities' 'int' INTEGER: the same word here, so the schemas compare equal.
    const int = sqlite ? 'integer' : 'int';
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts for why not addColumn).
    await queryRunner.query('ALTER TABLE tasks ADD COLUMN key_debounce TEXT NULL');
    await queryRunner.query('ALTER TABLE tasks ADD COLUMN key_throttle TEXT NULL');
    await queryRunner.query('ALTER TABLE runs ADD COLUMN window_until BIGINT NULL');
    await queryRunner.query('ALTER TABLE run_keys ADD COLUMN throttle_started_at BIGINT NULL');
    await queryRunner.query(`ALTER TABLE run_keys ADD COLUMN throttle_count ${int} NULL`);
    await queryRunner.query('ALTER TABLE run_keys ADD COLUMN throttle_trailing_at BIGINT NULL');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const [table, column] of [
      ['run_keys', 'throttle_trailing_at'],
      ['run_keys', 'throttle_count'],
      ['run_keys', 'throttle_started_at'],
      ['runs', 'window_until'],
      ['tasks', 'key_throttle'],
      ['tasks', 'key_debounce'],
    ]) {
      await queryRunner.query(`ALTER TABLE ${table} DROP COLUMN ${column}`);
    }
  }
}
