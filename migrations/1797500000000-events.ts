import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Events that start runs (issue 42, part 1):
 * - `events`: one row per event a tenant sent — name, payload (TEXT, ≤ 64 000 bytes of JSON),
 *   optional idempotency key, the ids of the runs it started (JSON array), when it arrived.
 *   `ix_events_tenant_time (tenant_id, received_at, id)` serves the events page and the retention
 *   purge; `ix_events_tenant_name (tenant_id, name, received_at, id)` the page filtered by name;
 *   `uq_events_tenant_key (tenant_id, idempotency_key)` stores a keyed event once per tenant.
 * - `tasks.event_name`, `event_filter`, `event_params` (NULL unless the trigger is EVENT), and
 *   `ix_tasks_event (tenant_id, event_name)`: an event reads only its tenant's tasks subscribed to
 *   its name.
 */
export class Events1797500000000 implements MigrationInterface {
  name = 'Events1797500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = queryRunner.connection.options.type === 'better-sqlite3' || queryRunner.connection.options.type === 'sqlite';
    await queryRunner.createTable(
      new Table({
        name: 'events',
        columns: [
          { name: 'id', type: sqlite ? 'integer' : 'bigint', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'tenant_id', type: 'varchar', length: '64' },
          { name: 'name', type: 'varchar', length: '100' },
          { name: 'payload', type: 'text' },
          { name: 'idempotency_key', type: 'varchar', length: '62', isNullable: true },
          { name: 'run_ids', type: 'text' },
          { name: 'received_at', type: 'bigint' },
        ],
        indices: [
          new TableIndex({ name: 'ix_events_tenant_time', columnNames: ['tenant_id', 'received_at', 'id'] }),
          new TableIndex({ name: 'ix_events_tenant_name', columnNames: ['tenant_id', 'name', 'received_at', 'id'] }),
          new TableIndex({ name: 'uq_events_tenant_key', columnNames: ['tenant_id', 'idempotency_key'], isUnique: true }),
        ],
      }),
    );
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts for why not addColumn).
    await queryRunner.query('ALTER TABLE tasks ADD COLUMN event_name VARCHAR(100) NULL');
    await queryRunner.query('ALTER TABLE tasks ADD COLUMN event_filter TEXT NULL');
    await queryRunner.query('ALTER TABLE tasks ADD COLUMN event_params TEXT NULL');
    await queryRunner.createIndex('tasks', new TableIndex({ name: 'ix_tasks_event', columnNames: ['tenant_id', 'event_name'] }));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('tasks', 'ix_tasks_event');
    for (const column of ['event_params', 'event_filter', 'event_name']) await queryRunner.query(`ALTER TABLE tasks DROP COLUMN ${column}`);
    await queryRunner.dropTable('events');
  }
}
