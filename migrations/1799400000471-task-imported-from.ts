import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `tasks.imported_from` VARCHAR(1000) NULL: the item of another scheduler a task was imported
 * from (`baton import`: a Quartz trigger, an XXL-JOB job). Tasks as code refuse to create a task
 * with the same one as a task kept beside it — a renamed import would fire the job twice. NULL,
 * every existing task's value: not imported (or imported before the column).
 */
export class TaskImportedFrom1799400000471 implements MigrationInterface {
  name = 'TaskImportedFrom1799400000471';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts for why not addColumn).
    await queryRunner.query('ALTER TABLE tasks ADD COLUMN imported_from VARCHAR(1000) NULL');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE tasks DROP COLUMN imported_from');
  }
}
