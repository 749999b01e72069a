import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Idempotency keys of submissions to a task that debounces or throttles per key (issue 42, part 4):
 * such a submission joins or opens its key's window run (fire key `w:…`) instead of making a run
 * named by its own key, so the run's fire key cannot remember the idempotency key as it does for
 * an ordinary run. `submission_keys` does: one row per task and idempotency fire key (`k:<key>`
 * for a trigger or batch submission, `e:<key>` for an event), naming the run it joined, opened or
 * started (`run_id`; NULL: the throttle dropped it, 0: being written by an open transaction).
 * Primary key (task_id, fire_key): a repeat finds its first outcome by it, and a concurrent first
 * write of the same key waits for the other's commit. `ix_submission_keys_tenant_time
 * (tenant_id, created_at)`: the retention purge's oldest rows of a tenant.
 */
export class SubmissionKeys1798200000000 implements MigrationInterface {
  name = 'SubmissionKeys1798200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = queryRunner.connection.options.type === 'better-sqlite3' || queryRunner.connection.options.type === 'sqlite';
    // SQLite names the entities' 'int' INTEGER: the same word here, so the schemas compare equal.
    const int = sqlite ? 'integer' : 'int';
    await queryRunner.createTable(
      new Table({
        name: 'submission_keys',
        columns: [
          { name: 'task_id', type: int, isPrimary: true },
          { name: 'fire_key', type: 'varchar', length: '64', isPrimary: true },
          { name: 'tenant_id', type: 'varchar', length: '64' },
          { name: 'run_id', type: 'bigint', isNullable: true },
          { name: 'created_at', type: 'bigint' },
        ],
        indices: [new TableIndex({ name: 'ix_submission_keys_tenant_time', columnNames: ['tenant_id', 'created_at'] })],
      }),
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('submission_keys');
  }
}
