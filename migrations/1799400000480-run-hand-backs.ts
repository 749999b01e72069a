import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `runs.hand_backs` INT NOT NULL DEFAULT 0: how many of the run's attempts were handed back (sent
 * ahead of its instant, never started by their executor: retryRunAttempt's HANDED_BACK). A run's
 * lateness is that of its first attempt not handed back (domain firstAttemptLateness): while
 * `attempt - hand_backs` is 1 that is the current attempt, measured from when it was really sent.
 *
 * Runs handed back before this migration get their count from run_attempts, and their
 * first_dispatched_at — which held the handed-back attempt's dispatch, its instant — the dispatch of
 * their first attempt not handed back (NULL while that is the current one).
 */
export class RunHandBacks1799400000480 implements MigrationInterface {
  name = 'RunHandBacks1799400000480';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts for why not addColumn);
    // INTEGER is SQLite's name of what TypeORM maps `int` to there.
    const type = isSqlite(queryRunner) ? 'INTEGER' : 'INT';
    await queryRunner.query(`ALTER TABLE runs ADD COLUMN hand_backs ${type} NOT NULL DEFAULT 0`);
    await queryRunner.query(
      `UPDATE runs SET
         hand_backs = (SELECT COUNT(*) FROM run_attempts a WHERE a.run_id = runs.id AND a.state = 'HANDED_BACK'),
         first_dispatched_at = (SELECT a.dispatched_at FROM run_attempts a WHERE a.run_id = runs.id AND a.state <> 'HANDED_BACK' AND a.dispatched_at IS NOT NULL ORDER BY a.attempt LIMIT 1)
       WHERE id IN (SELECT run_id FROM run_attempts WHERE state = 'HANDED_BACK')`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE runs DROP COLUMN hand_backs');
  }
}

function isSqlite(queryRunner: QueryRunner): boolean {
  const type = queryRunner.connection.options.type;
  return type === 'better-sqlite3' || type === 'sqlite';
}
