import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * `inbound_webhooks` (issue 42, inbound webhooks): one row per URL a tenant gives a third party
 * (`POST /api/hooks/<public_id>`) — the unguessable public id (its only key on the public route),
 * the name, the event name its deliveries become, the signing scheme and the signing secret. The
 * secret is kept in clear like `tenants.executor_secret`: verifying an HMAC needs it.
 * `uq_inbound_webhooks_public (public_id)` finds a delivery's hook; `uq_inbound_webhooks_tenant_name
 * (tenant_id, name)` lists a tenant's hooks and keeps their names apart.
 */
export class InboundWebhooks1797700000000 implements MigrationInterface {
  name = 'InboundWebhooks1797700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = queryRunner.connection.options.type === 'better-sqlite3' || queryRunner.connection.options.type === 'sqlite';
    await queryRunner.createTable(
      new Table({
        name: 'inbound_webhooks',
        columns: [
          { name: 'id', type: sqlite ? 'integer' : 'bigint', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'public_id', type: 'varchar', length: '64' },
          { name: 'tenant_id', type: 'varchar', length: '64' },
          { name: 'name', type: 'varchar', length: '100' },
          { name: 'event_name', type: 'varchar', length: '100' },
          { name: 'scheme', type: 'varchar', length: '16' },
          { name: 'secret', type: 'varchar', length: '128' },
          { name: 'created_at', type: 'bigint' },
        ],
        indices: [
          new TableIndex({ name: 'uq_inbound_webhooks_public', columnNames: ['public_id'], isUnique: true }),
          new TableIndex({ name: 'uq_inbound_webhooks_tenant_name', columnNames: ['tenant_id', 'name'], isUnique: true }),
        ],
      }),
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('inbound_webhooks');
  }
}
