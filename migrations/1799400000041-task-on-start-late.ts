import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `tasks.on_start_late` VARCHAR(8) NOT NULL DEFAULT 'ALARM': what a run of the task not sent to an
 * executor within its start deadline becomes (domain StartLatePolicy) — ALARM, a START_LATE alarm
 * and the run waits on (every existing task: what they did), or GIVE_UP, the run ends FAILED.
 * The watchdog's START_LATE scan reads it with the task it joins anyway (find-late-runs.ts).
 */
export class TaskOnStartLate1799400000041 implements MigrationInterface {
  name = 'TaskOnStartLate1799400000041';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts for why not addColumn).
    await queryRunner.query("ALTER TABLE tasks ADD COLUMN on_start_late VARCHAR(8) NOT NULL DEFAULT 'ALARM'");
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE tasks DROP COLUMN on_start_late');
  }
}
