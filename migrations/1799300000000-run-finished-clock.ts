import { MigrationInterface, QueryRunner } from 'typeorm';

/** The first words of the watchdog's timeout error (apps/engine/src/watchdog/watchdog.ts). */
const WATCHDOG_TIMEOUT = 'did not finish within its timeout%';

/**
 * `runs.finished_clock` and `run_attempts.finished_clock` VARCHAR(8) NULL: whose clock stamped
 * finished_at on a SUCCEEDED / FAILED / TIMED_OUT end, `engine` or `executor`. The state does not
 * say: a TIMED_OUT run was timed out by the engine's watchdog (its clock) or aborted by its
 * executor at its deadline (the executor's); a FAILED one failed in its handler, or was failed by
 * the engine when its executor was lost or every executor refused it. The console's run timeline
 * labelled every such end the executor's.
 *
 * Rows ended before: the watchdog's timeouts are known by their error, written only by the engine
 * (an executor's timeout reads `aborted (DEADLINE)…`), and are marked `engine`; the others stay
 * NULL, and the console goes by the state for them as before.
 */
export class RunFinishedClock1799300000000 implements MigrationInterface {
  name = 'RunFinishedClock1799300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts for why not addColumn).
    for (const table of ['runs', 'run_attempts']) {
      await queryRunner.query(`ALTER TABLE ${table} ADD COLUMN finished_clock VARCHAR(8) NULL`);
      await queryRunner.query(`UPDATE ${table} SET finished_clock = 'engine' WHERE state = 'TIMED_OUT' AND error LIKE ?`, [WATCHDOG_TIMEOUT]);
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['runs', 'run_attempts']) await queryRunner.query(`ALTER TABLE ${table} DROP COLUMN finished_clock`);
  }
}
