import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * AUDIT events for webhook channels (issue 23 part 2): a delivery carries an alarm or an audit
 * record. `webhook_deliveries.alarm_id` becomes nullable and `audit_id` (BIGINT NULL) names the
 * record; uq_webhook_deliveries_alarm keeps (channel, alarm, count) once for alarms (NULLs are
 * distinct in a unique key on both databases, so audit deliveries do not collide there). A channel
 * asks for them with AUDIT among its `alarm_types` (no column: the list is JSON already).
 */
export class AuditWebhooks1796620000002 implements MigrationInterface {
  name = 'AuditWebhooks1796620000002';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.changeColumn('webhook_deliveries', 'alarm_id', new TableColumn({ name: 'alarm_id', type: 'bigint', isNullable: true }));
    await queryRunner.addColumn('webhook_deliveries', new TableColumn({ name: 'audit_id', type: 'bigint', isNullable: true }));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DELETE FROM webhook_deliveries WHERE alarm_id IS NULL');
    await queryRunner.dropColumn('webhook_deliveries', 'audit_id');
    await queryRunner.changeColumn('webhook_deliveries', 'alarm_id', new TableColumn({ name: 'alarm_id', type: 'bigint', isNullable: false }));
  }
}
