import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `runs.instant_at` BIGINT NULL: the instant the run's current attempt is to start at (its fire
 * time, or the end of a retry's backoff), kept when a dispatch back-off moves `due_at` (a refusal,
 * no executor, an engine error): due_at says when the run may next be claimed and sent, instant_at
 * when it may start. NULL while due_at is that instant (never deferred), so no existing row needs a
 * value and the claim index (on due_at) is unchanged.
 */
export class RunInstant1797300000000 implements MigrationInterface {
  name = 'RunInstant1797300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts for why not addColumn).
    await queryRunner.query('ALTER TABLE runs ADD COLUMN instant_at BIGINT NULL');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE runs DROP COLUMN instant_at');
  }
}
