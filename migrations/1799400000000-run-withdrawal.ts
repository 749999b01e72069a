import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * `runs.withdrawal` VARCHAR(12) NULL and `ix_runs_withdrawal` (withdrawal, engine_group): what a
 * prepared fire that an engine may have sent ahead to an executor (DISPATCHED or ACCEPTED) became
 * when an edit, a pause, a calendar edit or a first dependency withdrew it (CANCELLED).
 * `UNSETTLED`: its executor has not said yet whether it started it, so its instant is not planned
 * again (that could run it twice); `NOT_STARTED`: it was dropped before it started, and its instant
 * was given back to the task's schedule; `STARTED`: it had started, and ran as it was prepared;
 * `UNKNOWN`: no word came by its timeout, and it is taken as run (never twice beats late).
 * NULL for every other run. The index is the engines' sweep of the unsettled ones (a few at any
 * time) — every other run's entry sits under NULL and is never read through it.
 * apps/engine/src/runs/withdrawn-fires.ts settles them.
 */
export class RunWithdrawal1799400000000 implements MigrationInterface {
  name = 'RunWithdrawal1799400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts for why not addColumn).
    await queryRunner.query('ALTER TABLE runs ADD COLUMN withdrawal VARCHAR(12) NULL');
    await queryRunner.createIndex('runs', new TableIndex({ name: 'ix_runs_withdrawal', columnNames: ['withdrawal', 'engine_group'] }));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('runs', 'ix_runs_withdrawal');
    await queryRunner.query('ALTER TABLE runs DROP COLUMN withdrawal');
  }
}
