import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `run_rollups.early_starts` INT NOT NULL DEFAULT 0: the runs of a bucket whose last attempt
 * started more than 20 ms before its instant (issue 39: an early start is a defect, counted in the
 * statistics). Existing rows get 0: the history job rewrites a bucket whole when it rolls it again,
 * and buckets rolled before the upgrade were never recounted (their runs may be purged already).
 */
export class RollupEarlyStarts1797400000000 implements MigrationInterface {
  name = 'RollupEarlyStarts1797400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts); INTEGER is SQLite's name of `int`.
    const type = isSqlite(queryRunner) ? 'INTEGER' : 'INT';
    await queryRunner.query(`ALTER TABLE run_rollups ADD COLUMN early_starts ${type} NOT NULL DEFAULT 0`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE run_rollups DROP COLUMN early_starts');
  }
}

function isSqlite(queryRunner: QueryRunner): boolean {
  const type = queryRunner.connection.options.type;
  return type === 'better-sqlite3' || type === 'sqlite';
}
