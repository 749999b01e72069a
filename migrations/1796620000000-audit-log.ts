import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * The audit log (issue 23 part 2): one row per change made through the console API, written in
 * the transaction of the change. Append-only: no route updates or deletes a row; only the
 * operator's retention ceiling purges old ones.
 *
 * Indexes follow the audit page's filters, each led by the tenant (a tenant admin only ever
 * reads its own tenant) and ending with (at, id), so a page — newest first, keyset on (at, id) —
 * and a time range are one index range:
 * - `ix_audit_tenant_time (tenant_id, at, id)`: a tenant's log; and the retention purge's oldest
 *   records of a tenant;
 * - `ix_audit_tenant_actor (tenant_id, actor_name, at, id)`: who;
 * - `ix_audit_tenant_object (tenant_id, object_type, object_id, at, id)`: one object's history (a
 *   task's History tab);
 * - `ix_audit_tenant_action (tenant_id, action, at, id)`: what;
 * - `ix_audit_at (at, id)`: the operator's view across tenants.
 */
export class AuditLog1796620000000 implements MigrationInterface {
  name = 'AuditLog1796620000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = queryRunner.connection.options.type === 'better-sqlite3' || queryRunner.connection.options.type === 'sqlite';
    await queryRunner.createTable(
      new Table({
        name: 'audit_log',
        columns: [
          { name: 'id', type: sqlite ? 'integer' : 'bigint', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'at', type: 'bigint' },
          { name: 'tenant_id', type: 'varchar', length: '64', isNullable: true },
          { name: 'actor_kind', type: 'varchar', length: '16' },
          { name: 'actor_name', type: 'varchar', length: '200' },
          { name: 'actor_user_id', type: 'integer', isNullable: true },
          { name: 'actor_api_key_id', type: 'integer', isNullable: true },
          { name: 'source_address', type: 'varchar', length: '64', isNullable: true },
          { name: 'action', type: 'varchar', length: '64' },
          { name: 'object_type', type: 'varchar', length: '32' },
          { name: 'object_id', type: 'varchar', length: '128', isNullable: true },
          { name: 'before_json', type: 'text', isNullable: true },
          { name: 'after_json', type: 'text', isNullable: true },
        ],
        indices: [
          new TableIndex({ name: 'ix_audit_tenant_time', columnNames: ['tenant_id', 'at', 'id'] }),
          new TableIndex({ name: 'ix_audit_tenant_actor', columnNames: ['tenant_id', 'actor_name', 'at', 'id'] }),
          new TableIndex({ name: 'ix_audit_tenant_object', columnNames: ['tenant_id', 'object_type', 'object_id', 'at', 'id'] }),
          new TableIndex({ name: 'ix_audit_tenant_action', columnNames: ['tenant_id', 'action', 'at', 'id'] }),
          new TableIndex({ name: 'ix_audit_at', columnNames: ['at', 'id'] }),
        ],
      }),
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('audit_log');
  }
}
