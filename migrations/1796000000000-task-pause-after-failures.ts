import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * Pause on failure (issue 14 item 4): `tasks.pause_after_failures` INT NULL — a task pauses
 * itself, with a TASK_PAUSED alarm, when its last this many runs all failed or timed out. NULL,
 * the value of every existing task, never pauses.
 */
export class TaskPauseAfterFailures1796000000000 implements MigrationInterface {
  name = 'TaskPauseAfterFailures1796000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('tasks', new TableColumn({ name: 'pause_after_failures', type: 'integer', isNullable: true }));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('tasks', 'pause_after_failures');
  }
}
