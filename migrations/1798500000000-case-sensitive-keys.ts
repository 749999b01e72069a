import { MigrationInterface, QueryRunner } from 'typeorm';
import { collateOnMysql } from './collate-on-mysql';

/**
 * The keys a tenant gives are case-sensitive, as the API says and as SQLite always compared them:
 * idempotency keys (1 to 62 of A-Z a-z 0-9 - _ . : ~: `Order-7` and `order-7` are two), concurrency
 * and rate key values (`Acme` and `acme`), key group names (`Billing` and `billing`). On MySQL the
 * columns that hold them took the tables' utf8mb4_unicode_ci, which folds case: a second key was
 * answered with the first one's run (or event), or shared its place and token bucket. They become
 * utf8mb4_bin:
 * - `runs.fire_key` (`k:<key>`, `e:<key>`, a window's `w:<base64url digest>`; a schedule's fire
 *   keys are digits, a submission's own a lower-case uuid), unique with task_id;
 * - `events.idempotency_key`, unique with tenant_id;
 * - `submission_keys.fire_key`, primary key with task_id;
 * - `runs.run_key`, `runs.key_scope` (in ix_runs_key);
 * - `run_keys.key_value`, `run_keys.key_scope` (its primary key, with tenant_id).
 * No stored key can clash under the new collation: they were unique under a coarser one. Each
 * ALTER rebuilds the indexes on its columns. SQLite: nothing to do (its TEXT compares bytes).
 * TypeORM's schema builder does not compare collations, so the entities keep no collation of their
 * own (it would be invalid on SQLite).
 */
export class CaseSensitiveKeys1798500000000 implements MigrationInterface {
  name = 'CaseSensitiveKeys1798500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await collate(queryRunner, 'utf8mb4_bin');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await collate(queryRunner, 'utf8mb4_unicode_ci');
  }
}

function collate(queryRunner: QueryRunner, collation: string): Promise<void> {
  return collateOnMysql(queryRunner, collation, (as) => [
    `ALTER TABLE runs MODIFY fire_key VARCHAR(64) ${as} NOT NULL, MODIFY run_key VARCHAR(160) ${as} NULL, MODIFY key_scope VARCHAR(66) ${as} NULL`,
    `ALTER TABLE events MODIFY idempotency_key VARCHAR(62) ${as} NULL`,
    `ALTER TABLE submission_keys MODIFY fire_key VARCHAR(64) ${as} NOT NULL`,
    `ALTER TABLE run_keys MODIFY key_value VARCHAR(160) ${as} NOT NULL, MODIFY key_scope VARCHAR(66) ${as} NOT NULL`,
  ]);
}
