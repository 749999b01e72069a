import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

const LATE_BY_FIRE_TIME = ['engine_group', 'state', 'late_alarmed_at', 'scheduled_at'];
const LATE_BY_LATE_FROM = ['engine_group', 'state', 'late_alarmed_at', 'late_from_at', 'scheduled_at'];

/**
 * `runs.late_from_at` BIGINT NULL: the instant the current attempt's lateness counts from when it
 * is not the run's fire time — a retry's instant (retryRunAttempt: the backoff is the task's own
 * wait), or when the run's keys admitted it after holding it back: its rate key's token time
 * (deferRateKeyRuns), the time its concurrency key gave it a place (releaseHeldKeyRuns). A wait the
 * task's own rules impose is not lateness: START_LATE (find-late-runs.ts), the engine's lateness
 * histogram and the task statistics measure from here, where due_at and instant_at cannot tell such
 * a wait from a deferral for dispatch trouble (which is late from the fire time). NULL for a first
 * attempt its keys never held back.
 *
 * `ix_runs_late` gains late_from_at before scheduled_at: the START_LATE scan reads the runs without
 * one by fire time and those with one by late_from_at, two ranges, so neither a rate key's backlog
 * waiting for its tokens nor a tenant's retries waiting for their backoff are read on every
 * watchdog tick of every engine until they are a deadline old (with the fire time alone, every
 * such run was read with its task on every tick).
 *
 * Live retries get their instant, so that an upgrade raises no START_LATE for a retry in its backoff.
 */
export class RunLateFrom1798900000000 implements MigrationInterface {
  name = 'RunLateFrom1798900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts for why not addColumn).
    await queryRunner.query('ALTER TABLE runs ADD COLUMN late_from_at BIGINT NULL');
    await queryRunner.query(
      "UPDATE runs SET late_from_at = COALESCE(instant_at, due_at) WHERE attempt > 1 AND state IN ('PENDING', 'CLAIMED', 'RETRY_WAIT', 'HELD', 'COALESCING', 'APPROVAL_WAIT')",
    );
    await queryRunner.dropIndex('runs', 'ix_runs_late');
    await queryRunner.createIndex('runs', new TableIndex({ name: 'ix_runs_late', columnNames: LATE_BY_LATE_FROM }));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('runs', 'ix_runs_late');
    await queryRunner.createIndex('runs', new TableIndex({ name: 'ix_runs_late', columnNames: LATE_BY_FIRE_TIME }));
    await queryRunner.query('ALTER TABLE runs DROP COLUMN late_from_at');
  }
}
