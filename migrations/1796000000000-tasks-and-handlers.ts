import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * What users of other schedulers rely on (issue 14):
 *
 * - `tasks.pause_after_failures` INT NULL — a task pauses itself, with a TASK_PAUSED alarm, when
 *   its last this many runs all failed or timed out. NULL, the value of every existing task,
 *   never pauses.
 * - `executors.handlers` TEXT NULL — the handler names an executor's last heartbeat offered (a
 *   JSON array; executors always sent them, engines dropped them), so the console can list them
 *   and warn about a task whose handler no live executor of its app offers. NULL until the
 *   executor's next heartbeat.
 * - `runs.parent_results` TEXT NULL — a child run's parents' results in its flow, by task name
 *   (bounded JSON), written when the child fires and handed to its handler (`ctx.parentResults`).
 * - `runs.flow_params` TEXT NULL — params given when a flow's root run was triggered, copied to
 *   every run of the flow (`ctx.flowParams`).
 */
export class TasksAndHandlers1796000000000 implements MigrationInterface {
  name = 'TasksAndHandlers1796000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('tasks', new TableColumn({ name: 'pause_after_failures', type: 'integer', isNullable: true }));
    await queryRunner.addColumn('executors', new TableColumn({ name: 'handlers', type: 'text', isNullable: true }));
    // Plain ALTER TABLE, not addColumn: on SQLite TypeORM would rebuild the runs table, and with it
    // ix_runs_claim, whose DESC key part it cannot express; on MariaDB a nullable column is instant.
    await queryRunner.query('ALTER TABLE runs ADD COLUMN parent_results TEXT NULL');
    await queryRunner.query('ALTER TABLE runs ADD COLUMN flow_params TEXT NULL');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE runs DROP COLUMN flow_params');
    await queryRunner.query('ALTER TABLE runs DROP COLUMN parent_results');
    await queryRunner.dropColumn('executors', 'handlers');
    await queryRunner.dropColumn('tasks', 'pause_after_failures');
  }
}
