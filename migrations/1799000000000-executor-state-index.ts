import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * `ix_executors_state` (state, tenant_id, heartbeat_at): every engine reads the UP executors every
 * second (its routing table, the silent-executor check, the load figures). The table was read
 * whole, and it keeps a row for every executor process that ever registered — each restart of a
 * pod at a new address leaves one DOWN, kept for its runs' history — so that read grew with every
 * tenant's deploys (or with one tenant registering addresses on purpose). Now it is the UP range.
 */
export class ExecutorStateIndex1799000000000 implements MigrationInterface {
  name = 'ExecutorStateIndex1799000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex('executors', new TableIndex({ name: 'ix_executors_state', columnNames: ['state', 'tenant_id', 'heartbeat_at'] }));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('executors', 'ix_executors_state');
  }
}
