import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `runs.token_at` BIGINT NULL: when the run's rate key has a token for its current attempt, written
 * by deferRateKeyRuns (the due_at it gives a run that found none) and cleared by a retry. The wait
 * for a token is the task's own rule, not lateness: START_LATE measures such a run from its token's
 * time (find-late-runs.ts), where due_at and instant_at cannot tell it from a run deferred by
 * dispatch trouble (which is late from its fire time). NULL for every run that never waited for a
 * token, so no existing row needs a value and no index changes.
 */
export class RunToken1798900000000 implements MigrationInterface {
  name = 'RunToken1798900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts for why not addColumn).
    await queryRunner.query('ALTER TABLE runs ADD COLUMN token_at BIGINT NULL');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE runs DROP COLUMN token_at');
  }
}
