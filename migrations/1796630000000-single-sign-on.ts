import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * Single sign-on and tasks as code (issue 23).
 *
 * 1. `users.sso_provider` VARCHAR(16) NULL and `users.sso_subject` VARCHAR(255) NULL, unique
 *    together (`uq_users_sso`): the provider (`oidc`, `ldap`) and its stable id of the user, so a
 *    renamed or moved user is still found. NULLs repeat in a unique index: password users share it.
 * 2. `tenants.sso_required` NOT NULL default false: the tenant's users sign in only through SSO.
 * 3. `tasks.managed_hash` VARCHAR(64) NULL: hash of the definition a tasks-as-code file applied
 *    (null: not managed); a different current hash is drift.
 *
 * Booleans are TINYINT on MySQL and BOOLEAN on SQLite, as in the initial schema.
 */
export class SingleSignOn1796630000000 implements MigrationInterface {
  name = 'SingleSignOn1796630000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER TABLE … ADD COLUMN (both databases have it) rather than addColumn, which
    // rebuilds a SQLite table from a schema that misses earlier raw-SQL columns.
    const boolean = isSqlite(queryRunner) ? 'BOOLEAN' : 'TINYINT';
    await queryRunner.query('ALTER TABLE users ADD COLUMN sso_provider VARCHAR(16) NULL');
    await queryRunner.query('ALTER TABLE users ADD COLUMN sso_subject VARCHAR(255) NULL');
    await queryRunner.createIndex('users', new TableIndex({ name: 'uq_users_sso', columnNames: ['sso_provider', 'sso_subject'], isUnique: true }));
    await queryRunner.query(`ALTER TABLE tenants ADD COLUMN sso_required ${boolean} NOT NULL DEFAULT 0`);
    await queryRunner.query('ALTER TABLE tasks ADD COLUMN managed_hash VARCHAR(64) NULL');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE tasks DROP COLUMN managed_hash');
    await queryRunner.query('ALTER TABLE tenants DROP COLUMN sso_required');
    await queryRunner.dropIndex('users', 'uq_users_sso');
    await queryRunner.query('ALTER TABLE users DROP COLUMN sso_subject');
    await queryRunner.query('ALTER TABLE users DROP COLUMN sso_provider');
  }
}

function isSqlite(queryRunner: QueryRunner): boolean {
  const type = queryRunner.connection.options.type;
  return type === 'better-sqlite3' || type === 'sqlite';
}
