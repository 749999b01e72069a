import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `tenants.xxl_job_access_token` VARCHAR(128) NULL: the access token the tenant's XXL-JOB
 * executors (xxl-job-core) send to Baton's XXL-JOB admin API and that Baton sends to them
 * (`XXL-JOB-ACCESS-TOKEN`). Kept in clear like `executor_secret`: the engine must send it.
 * NULL: the tenant serves no XXL-JOB executors (its admin API refuses every request).
 */
export class TenantXxlJobToken1797600000000 implements MigrationInterface {
  name = 'TenantXxlJobToken1797600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts for why not addColumn).
    await queryRunner.query('ALTER TABLE tenants ADD COLUMN xxl_job_access_token VARCHAR(128) NULL');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE tenants DROP COLUMN xxl_job_access_token');
  }
}
