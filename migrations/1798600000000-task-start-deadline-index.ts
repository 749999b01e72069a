import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * `ix_tasks_start_deadline (start_deadline_ms)`: the least start deadline of all tasks in one index
 * dive (readLeastStartDeadline), which bounds the watchdog's START_LATE scan to runs fired at
 * least that long ago. Without it the scan read every due run of a backlog, each with its task,
 * every watchdog tick of every engine (docs/BENCHMARKS.md, on demand).
 */
export class TaskStartDeadlineIndex1798600000000 implements MigrationInterface {
  name = 'TaskStartDeadlineIndex1798600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex('tasks', new TableIndex({ name: 'ix_tasks_start_deadline', columnNames: ['start_deadline_ms'] }));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('tasks', 'ix_tasks_start_deadline');
  }
}
