import { MigrationInterface, QueryRunner, Table } from 'typeorm';

/**
 * `cluster_secrets`: secrets every process of a cluster shares, one row each, made by the first
 * process that needs it (readClusterSecret: an insert that a concurrent one cannot double) — so a
 * cluster needs no setting for them and every engine, node and console reads the same. The first:
 * `metrics-tenant-label`, the key of the opaque `tenant` label of an open `/metrics`
 * (metricsTenantLabel).
 */
export class ClusterSecrets1799350000000 implements MigrationInterface {
  name = 'ClusterSecrets1799350000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'cluster_secrets',
        columns: [
          { name: 'name', type: 'varchar', length: '64', isPrimary: true },
          { name: 'secret', type: 'varchar', length: '128' },
          { name: 'created_at', type: 'bigint' },
        ],
      }),
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('cluster_secrets');
  }
}
