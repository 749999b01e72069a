import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `tasks.cron_repeated_time` VARCHAR(12) NULL and `tasks.cron_skipped_time` VARCHAR(9) NULL: a
 * cron task's daylight-saving policies (RepeatedTimePolicy, SkippedTimePolicy in libs/domain
 * types.ts). NULL is the default (ONCE_LATER, SKIP: Quartz's), so existing rows need no value.
 */
export class CronDstPolicies1798000000000 implements MigrationInterface {
  name = 'CronDstPolicies1798000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts for why not addColumn).
    await queryRunner.query('ALTER TABLE tasks ADD COLUMN cron_repeated_time VARCHAR(12) NULL');
    await queryRunner.query('ALTER TABLE tasks ADD COLUMN cron_skipped_time VARCHAR(9) NULL');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE tasks DROP COLUMN cron_skipped_time');
    await queryRunner.query('ALTER TABLE tasks DROP COLUMN cron_repeated_time');
  }
}
