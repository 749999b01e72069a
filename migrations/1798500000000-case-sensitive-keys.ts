import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency keys are case-sensitive, as the API says (1 to 62 of A-Z a-z 0-9 - _ . : ~) and as
 * SQLite always compared them: `Order-7` and `order-7` are two keys. On MySQL the columns that
 * hold them took the tables' utf8mb4_unicode_ci, which folds case, so the second of the two was
 * answered with the first one's run (or event). They become utf8mb4_bin:
 * - `runs.fire_key` (`k:<key>`, `e:<key>`; a schedule's fire keys are digits, a submission's
 *   own a lower-case uuid: unchanged by the fold), unique with task_id;
 * - `events.idempotency_key`, unique with tenant_id;
 * - `submission_keys.fire_key`, primary key with task_id.
 * No stored key can clash under the new collation: they were unique under a coarser one. Each
 * ALTER rebuilds its column's indexes (on MariaDB 10.11 in place, the table readable meanwhile).
 * SQLite: nothing to do (its TEXT compares bytes). TypeORM's schema builder does not compare
 * collations, so the entities keep no collation of their own (it would be invalid on SQLite).
 */
export class CaseSensitiveKeys1798500000000 implements MigrationInterface {
  name = 'CaseSensitiveKeys1798500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await this.collate(queryRunner, 'utf8mb4_bin');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await this.collate(queryRunner, 'utf8mb4_unicode_ci');
  }

  private async collate(queryRunner: QueryRunner, collation: string): Promise<void> {
    const type = queryRunner.connection.options.type;
    if (type === 'better-sqlite3' || type === 'sqlite') return;
    await queryRunner.query(`ALTER TABLE runs MODIFY fire_key VARCHAR(64) CHARACTER SET utf8mb4 COLLATE ${collation} NOT NULL`);
    await queryRunner.query(`ALTER TABLE events MODIFY idempotency_key VARCHAR(62) CHARACTER SET utf8mb4 COLLATE ${collation} NULL`);
    await queryRunner.query(`ALTER TABLE submission_keys MODIFY fire_key VARCHAR(64) CHARACTER SET utf8mb4 COLLATE ${collation} NOT NULL`);
  }
}
