import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

const LATE_WITHOUT_ADMITTED = ['engine_group', 'state', 'late_alarmed_at', 'scheduled_at'];
const LATE_WITH_ADMITTED = ['engine_group', 'state', 'late_alarmed_at', 'admitted_at', 'scheduled_at'];

/**
 * `runs.admitted_at` BIGINT NULL: when the run's keys admit its current attempt after holding it
 * back — its rate key's token time, written by deferRateKeyRuns (the due_at it gives a run that
 * found none), or when its concurrency key gave it a place (releaseHeldKeyRuns) — and cleared by a
 * retry. A wait the task's own keys impose is not lateness: START_LATE measures such a run from its
 * admission (find-late-runs.ts), where due_at and instant_at cannot tell it from a run deferred by
 * dispatch trouble (which is late from its fire time). NULL for every run its keys never held back,
 * so no existing row needs a value (a run HELD now is measured from its fire time once released).
 *
 * `ix_runs_late` gains admitted_at before scheduled_at: the START_LATE scan reads the runs without a
 * admission by fire time and those with one by admission time, two ranges, so a rate key's backlog
 * waiting for its tokens stays out of the scan until its tokens are a deadline old (with the column alone,
 * every waiting run was read with its task on every watchdog tick of every engine).
 */
export class RunAdmitted1798900000000 implements MigrationInterface {
  name = 'RunAdmitted1798900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts for why not addColumn).
    await queryRunner.query('ALTER TABLE runs ADD COLUMN admitted_at BIGINT NULL');
    await queryRunner.dropIndex('runs', 'ix_runs_late');
    await queryRunner.createIndex('runs', new TableIndex({ name: 'ix_runs_late', columnNames: LATE_WITH_ADMITTED }));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('runs', 'ix_runs_late');
    await queryRunner.createIndex('runs', new TableIndex({ name: 'ix_runs_late', columnNames: LATE_WITHOUT_ADMITTED }));
    await queryRunner.query('ALTER TABLE runs DROP COLUMN admitted_at');
  }
}
