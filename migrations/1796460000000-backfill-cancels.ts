import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Backfills written in slices (issue 20): `tasks.backfill_cancels` INT NOT NULL DEFAULT 0 — how
 * many times the task's backfills were cancelled (DELETE /api/tasks/{id}/backfill). A backfill
 * being written reads it, under a share lock, before each slice and stops when it has changed,
 * so a cancel during the writing leaves no run of it PENDING.
 */
export class BackfillCancels1796460000000 implements MigrationInterface {
  name = 'BackfillCancels1796460000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE tasks ADD COLUMN backfill_cancels INTEGER NOT NULL DEFAULT 0');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE tasks DROP COLUMN backfill_cancels');
  }
}
