import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * `inbound_webhook_signatures`: the signatures inbound webhook deliveries verified with, so that a
 * captured delivery sent again is refused (a GitHub-style signature covers the body alone, no time:
 * it verifies for ever). One row per tenant and signature (primary key: a replay sent at the same
 * moment as the first waits on its row), with the delivery's event idempotency key (`delivery_key`,
 * NULL when it named none): only the same delivery is taken again. `ix_inbound_webhook_signatures_tenant_time
 * (tenant_id, received_at)`: the retention purge's oldest rows of a tenant.
 */
export class InboundWebhookSignatures1799380000000 implements MigrationInterface {
  name = 'InboundWebhookSignatures1799380000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'inbound_webhook_signatures',
        columns: [
          { name: 'tenant_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'signature', type: 'varchar', length: '64', isPrimary: true },
          { name: 'delivery_key', type: 'varchar', length: '62', isNullable: true },
          { name: 'received_at', type: 'bigint' },
        ],
        indices: [new TableIndex({ name: 'ix_inbound_webhook_signatures_tenant_time', columnNames: ['tenant_id', 'received_at'] })],
      }),
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('inbound_webhook_signatures');
  }
}
