import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Task versions (issue 23 part 3): every change of a task's definition keeps the definition it
 * changed to, numbered by the task's `version`, in the change's transaction. Rows outlive their
 * task (its history stays readable in the audit log's terms); restoring one writes a new version.
 *
 * - `uq_task_versions_task (task_id, version)`: one row per version; a task's list is one range.
 */
export class TaskVersions1796620000001 implements MigrationInterface {
  name = 'TaskVersions1796620000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = queryRunner.connection.options.type === 'better-sqlite3' || queryRunner.connection.options.type === 'sqlite';
    await queryRunner.createTable(
      new Table({
        name: 'task_versions',
        columns: [
          { name: 'id', type: sqlite ? 'integer' : 'bigint', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'tenant_id', type: 'varchar', length: '64' },
          { name: 'task_id', type: 'integer' },
          { name: 'version', type: 'integer' },
          { name: 'at', type: 'bigint' },
          { name: 'actor_name', type: 'varchar', length: '200', isNullable: true },
          { name: 'definition', type: 'text' },
        ],
        indices: [new TableIndex({ name: 'uq_task_versions_task', columnNames: ['task_id', 'version'], isUnique: true })],
      }),
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('task_versions');
  }
}
