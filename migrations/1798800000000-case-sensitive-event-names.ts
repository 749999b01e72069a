import { MigrationInterface, QueryRunner } from 'typeorm';
import { collateOnMysql } from './collate-on-mysql';

/**
 * Event names are matched exactly, case included (`Order.Paid` and `order.paid` are two events), as
 * the API says and as SQLite always compared them. On MySQL the columns that hold them took the
 * tables' utf8mb4_unicode_ci, which folds case: `GET /api/events?name=order.paid` listed the
 * `Order.Paid` and `ORDER.PAID` events too, and an event read the subscribers of every name
 * differing only in case (the console then left them out). They become utf8mb4_bin, as the keys did
 * (1798500000000-case-sensitive-keys):
 * - `events.name` (in ix_events_tenant_name);
 * - `tasks.event_name` (in ix_tasks_event), the name an EVENT trigger listens to;
 * - `inbound_webhooks.event_name`, the name a hook's deliveries become.
 * No index on them is unique, so no stored row can clash. SQLite: nothing to do (its TEXT compares
 * bytes). The entities keep no collation of their own (it would be invalid on SQLite).
 */
export class CaseSensitiveEventNames1798800000000 implements MigrationInterface {
  name = 'CaseSensitiveEventNames1798800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await collate(queryRunner, 'utf8mb4_bin');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await collate(queryRunner, 'utf8mb4_unicode_ci');
  }
}

function collate(queryRunner: QueryRunner, collation: string): Promise<void> {
  return collateOnMysql(queryRunner, collation, (as) => [
    `ALTER TABLE events MODIFY name VARCHAR(100) ${as} NOT NULL`,
    `ALTER TABLE tasks MODIFY event_name VARCHAR(100) ${as} NULL`,
    `ALTER TABLE inbound_webhooks MODIFY event_name VARCHAR(100) ${as} NOT NULL`,
  ]);
}
