import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * Where a tenant's executors may live (issue 12): `tenants.executor_networks` TEXT NULL, a JSON
 * array of CIDR ranges, addresses, host names and `*.domain`s (libs/domain executor-networks.ts).
 * NULL, the value of every existing tenant, allows any executor URL except link-local and
 * metadata addresses, which are refused whatever the list says — so existing clusters keep
 * working and gain that refusal.
 *
 * `tenants` has only its primary key, which TypeORM's SQLite table rebuild behind addColumn keeps.
 */
export class TenantExecutorNetworks1795700000000 implements MigrationInterface {
  name = 'TenantExecutorNetworks1795700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('tenants', new TableColumn({ name: 'executor_networks', type: 'text', isNullable: true }));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('tenants', 'executor_networks');
  }
}
