import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `alarms.published_count` INT NULL: the count the alarm's last publish carried (the relay writes
 * it with `published_at`). A repeat counted into an alarm published less than a second before, by
 * any engine, waits for that second to end (AlarmCounts) and is then published only if no later
 * publish carried it — a count above published_count. NULL: never published, or published before
 * this column (taken as behind).
 */
export class AlarmPublishedCount1799350000001 implements MigrationInterface {
  name = 'AlarmPublishedCount1799350000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts); INTEGER is SQLite's name of `int`.
    const type = queryRunner.connection.options.type === 'better-sqlite3' || queryRunner.connection.options.type === 'sqlite' ? 'INTEGER' : 'INT';
    await queryRunner.query(`ALTER TABLE alarms ADD COLUMN published_count ${type} NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE alarms DROP COLUMN published_count');
  }
}
