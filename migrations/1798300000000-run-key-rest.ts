import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * Keys' rows are purged once at rest (issue 42): a task keyed by customer makes a run_keys row per
 * customer it ever saw, and without a purge the table only grows.
 * - `run_keys.used_at` BIGINT NULL: when a run of the key last took its row (kept to within
 *   KEY_USE_STEP_MS, so most locks write nothing); NULL for rows made before this migration.
 * - `ix_run_keys_rest (tenant_id, used_at)`: the purge's oldest rows of a tenant, a range of it.
 */
export class RunKeyRest1798300000000 implements MigrationInterface {
  name = 'RunKeyRest1798300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts for why not addColumn).
    await queryRunner.query('ALTER TABLE run_keys ADD COLUMN used_at BIGINT NULL');
    await queryRunner.createIndex('run_keys', new TableIndex({ name: 'ix_run_keys_rest', columnNames: ['tenant_id', 'used_at'] }));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('run_keys', 'ix_run_keys_rest');
    await queryRunner.query('ALTER TABLE run_keys DROP COLUMN used_at');
  }
}
