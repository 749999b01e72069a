import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `executors.wire` VARCHAR(16) NOT NULL DEFAULT 'baton': the protocol an executor is spoken to
 * with — `baton` (signed /baton/runs, heartbeats) or `xxl-job` (an xxl-job-core executor that
 * registered through the tenant's XXL-JOB admin API: /run, /kill, /log, /beat with its access
 * token). Every existing row is a Baton executor.
 */
export class ExecutorWire1797600000001 implements MigrationInterface {
  name = 'ExecutorWire1797600000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts for why not addColumn).
    await queryRunner.query("ALTER TABLE executors ADD COLUMN wire VARCHAR(16) NOT NULL DEFAULT 'baton'");
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE executors DROP COLUMN wire');
  }
}
