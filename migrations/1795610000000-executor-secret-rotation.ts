import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * Executor secret rotation with an overlap window (issue 10): a rotated tenant's executors keep
 * working with the previous secret for a stated time while they are restarted with the new one.
 *
 * Columns on `tenants`:
 * - `executor_secret_version` INT NOT NULL, default 1: bumped by every rotation; the version of
 *   `executor_secret`. The previous secret's version is this minus one.
 * - `previous_executor_secret` VARCHAR(128) NULL: the secret before the last rotation, accepted
 *   until `previous_secret_expires_at`; NULL when none (never rotated, or revoked at once).
 * - `previous_secret_expires_at` BIGINT NULL: epoch ms after which the previous secret is refused.
 *
 * Column on `executors`:
 * - `secret_version` INT NULL: the tenant secret version that verified the executor's latest
 *   heartbeat. The engine signs its dispatches and aborts to that executor with that secret (an
 *   executor knows one secret only), and the console shows executors still on an old version as
 *   needing the new secret. NULL for executors registered before this column.
 *
 * `integer`, not `int`, as in the initial schema: INT on MySQL, and the `integer` TypeORM's SQLite
 * driver expects for an entity's `int` column.
 *
 * `tenants` has only its primary key and `executors` its unique (tenant, app, url) index, which
 * TypeORM's SQLite table rebuild behind addColumn keeps.
 */
export class ExecutorSecretRotation1795610000000 implements MigrationInterface {
  name = 'ExecutorSecretRotation1795610000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns('tenants', [
      new TableColumn({ name: 'executor_secret_version', type: 'integer', isNullable: false, default: '1' }),
      new TableColumn({ name: 'previous_executor_secret', type: 'varchar', length: '128', isNullable: true }),
      new TableColumn({ name: 'previous_secret_expires_at', type: 'bigint', isNullable: true }),
    ]);
    await queryRunner.addColumn('executors', new TableColumn({ name: 'secret_version', type: 'integer', isNullable: true }));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('executors', 'secret_version');
    for (const name of ['previous_secret_expires_at', 'previous_executor_secret', 'executor_secret_version']) await queryRunner.dropColumn('tenants', name);
  }
}
