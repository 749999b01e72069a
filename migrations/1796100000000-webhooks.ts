import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Alarm channels beyond the console (issue 14 item 5):
 *
 * - `webhook_channels`: a tenant's HTTPS endpoints, each with its signing secret and its routing
 *   rule (alarm types, lowest severity).
 * - `webhook_deliveries`: one row per (channel, alarm, count) — written by the outbox relay in
 *   the transaction that marks the alarm published, so each alarm is queued once per channel —
 *   and worked off by the engines' webhook sender with retries.
 */
export class Webhooks1796100000000 implements MigrationInterface {
  name = 'Webhooks1796100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = queryRunner.connection.options.type === 'better-sqlite3' || queryRunner.connection.options.type === 'sqlite';
    const id = { name: 'id', type: sqlite ? 'integer' : 'bigint', isPrimary: true, isGenerated: true, generationStrategy: 'increment' as const };
    await queryRunner.createTable(
      new Table({
        name: 'webhook_channels',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'tenant_id', type: 'varchar', length: '64' },
          { name: 'name', type: 'varchar', length: '100' },
          { name: 'url', type: 'varchar', length: '500' },
          { name: 'secret', type: 'varchar', length: '128' },
          { name: 'alarm_types', type: 'text', isNullable: true },
          { name: 'min_severity', type: 'varchar', length: '8' },
          { name: 'created_at', type: 'bigint' },
        ],
        indices: [new TableIndex({ name: 'uq_webhook_channels_tenant_name', columnNames: ['tenant_id', 'name'], isUnique: true })],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'webhook_deliveries',
        columns: [
          id,
          { name: 'tenant_id', type: 'varchar', length: '64' },
          { name: 'channel_id', type: 'integer' },
          { name: 'alarm_id', type: 'bigint' },
          { name: 'alarm_count', type: 'integer' },
          { name: 'attempts', type: 'integer' },
          { name: 'next_at', type: 'bigint' },
          { name: 'delivered_at', type: 'bigint', isNullable: true },
          { name: 'failed_at', type: 'bigint', isNullable: true },
          { name: 'last_error', type: 'varchar', length: '500', isNullable: true },
          { name: 'created_at', type: 'bigint' },
        ],
        indices: [
          new TableIndex({ name: 'uq_webhook_deliveries_alarm', columnNames: ['channel_id', 'alarm_id', 'alarm_count'], isUnique: true }),
          new TableIndex({ name: 'ix_webhook_deliveries_due', columnNames: ['delivered_at', 'failed_at', 'next_at'] }),
        ],
      }),
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('webhook_deliveries');
    await queryRunner.dropTable('webhook_channels');
  }
}
