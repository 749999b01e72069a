import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Concurrency and rate keys are case-sensitive, as SQLite always compared them: a task keyed by
 * `customerId` keeps `Acme` and `acme` apart, and key groups `Billing` and `billing` are two groups.
 * On MySQL the columns took the tables' utf8mb4_unicode_ci, which folds case, so two such keys
 * shared one place (and one token bucket). They become utf8mb4_bin:
 * - `runs.run_key`, `runs.key_scope` (in ix_runs_key, with state and tenant);
 * - `run_keys.key_value`, `run_keys.key_scope` (its primary key, with tenant_id).
 * No stored key can clash under the new collation: they were unique under a coarser one. Each
 * ALTER rebuilds the indexes on its columns. SQLite: nothing to do (its TEXT compares bytes).
 * TypeORM's schema builder does not compare collations, so the entities keep none of their own.
 * (Idempotency keys: 1798500000000-case-sensitive-keys.)
 */
export class CaseSensitiveKeyValues1798600000000 implements MigrationInterface {
  name = 'CaseSensitiveKeyValues1798600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await this.collate(queryRunner, 'utf8mb4_bin');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await this.collate(queryRunner, 'utf8mb4_unicode_ci');
  }

  private async collate(queryRunner: QueryRunner, collation: string): Promise<void> {
    const type = queryRunner.connection.options.type;
    if (type === 'better-sqlite3' || type === 'sqlite') return;
    const as = `CHARACTER SET utf8mb4 COLLATE ${collation}`;
    await queryRunner.query(`ALTER TABLE runs MODIFY run_key VARCHAR(160) ${as} NULL, MODIFY key_scope VARCHAR(66) ${as} NULL`);
    await queryRunner.query(`ALTER TABLE run_keys MODIFY key_value VARCHAR(160) ${as} NOT NULL, MODIFY key_scope VARCHAR(66) ${as} NOT NULL`);
  }
}
