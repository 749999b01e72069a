import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Approval steps (issue 42 item 5):
 *
 * - `task_dependencies.approval` TEXT NULL: the edge's approval gate as JSON (role, users,
 *   timeoutMs, onTimeout); NULL, every existing edge, is an edge that fires its child at once.
 * - `run_approvals`: one row per run that waits for a person (runs.state APPROVAL_WAIT), keyed by
 *   the run — who may decide, the deadline and what it decides, and the decision once made (by
 *   whom, when, with which comment). `due_at` is when an engine must act on the row: the deadline
 *   while nobody has decided, the decision's time once a person has rejected (the engine ends the
 *   run and fires its follow-ups), NULL when nothing is left to do. `ix_run_approvals_due (due_at)`
 *   is the engines' one read of it: a range over the rows due now, however many runs wait.
 */
export class ApprovalSteps1797900000000 implements MigrationInterface {
  name = 'ApprovalSteps1797900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts for why not addColumn).
    await queryRunner.query('ALTER TABLE task_dependencies ADD COLUMN approval TEXT NULL');
    await queryRunner.createTable(
      new Table({
        name: 'run_approvals',
        columns: [
          { name: 'run_id', type: 'bigint', isPrimary: true },
          { name: 'tenant_id', type: 'varchar', length: '64' },
          { name: 'role', type: 'varchar', length: '16', isNullable: true },
          { name: 'users', type: 'text' },
          { name: 'on_timeout', type: 'varchar', length: '8' },
          { name: 'deadline_at', type: 'bigint' },
          { name: 'due_at', type: 'bigint', isNullable: true },
          { name: 'decision', type: 'varchar', length: '8', isNullable: true },
          { name: 'decided_by', type: 'varchar', length: '128', isNullable: true },
          { name: 'decided_at', type: 'bigint', isNullable: true },
          { name: 'comment', type: 'varchar', length: '1000', isNullable: true },
          { name: 'created_at', type: 'bigint' },
        ],
        indices: [new TableIndex({ name: 'ix_run_approvals_due', columnNames: ['due_at'] })],
      }),
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('run_approvals');
    await queryRunner.query('ALTER TABLE task_dependencies DROP COLUMN approval');
  }
}
