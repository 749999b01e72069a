import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

const LATE_WITHOUT_TOKEN = ['engine_group', 'state', 'late_alarmed_at', 'scheduled_at'];
const LATE_WITH_TOKEN = ['engine_group', 'state', 'late_alarmed_at', 'token_at', 'scheduled_at'];

/**
 * `runs.token_at` BIGINT NULL: when the run's rate key has a token for its current attempt, written
 * by deferRateKeyRuns (the due_at it gives a run that found none) and cleared by a retry. The wait
 * for a token is the task's own rule, not lateness: START_LATE measures such a run from its token's
 * time (find-late-runs.ts), where due_at and instant_at cannot tell it from a run deferred by
 * dispatch trouble (which is late from its fire time). NULL for every run that never waited for a
 * token, so no existing row needs a value.
 *
 * `ix_runs_late` gains token_at before scheduled_at: the START_LATE scan reads the runs without a
 * token by fire time and those with one by token time, two ranges, so a rate key's backlog waiting
 * for its tokens stays out of the scan until its tokens are a deadline old (with the column alone,
 * every waiting run was read with its task on every watchdog tick of every engine).
 */
export class RunToken1798900000000 implements MigrationInterface {
  name = 'RunToken1798900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts for why not addColumn).
    await queryRunner.query('ALTER TABLE runs ADD COLUMN token_at BIGINT NULL');
    await queryRunner.dropIndex('runs', 'ix_runs_late');
    await queryRunner.createIndex('runs', new TableIndex({ name: 'ix_runs_late', columnNames: LATE_WITH_TOKEN }));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('runs', 'ix_runs_late');
    await queryRunner.createIndex('runs', new TableIndex({ name: 'ix_runs_late', columnNames: LATE_WITHOUT_TOKEN }));
    await queryRunner.query('ALTER TABLE runs DROP COLUMN token_at');
  }
}
