import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * User management (issue 10): an administrator disables a user instead of deleting it, so the
 * user's name stays taken and the account can be enabled again.
 *
 * Column on `users`:
 * - `disabled` NOT NULL, default false: a disabled user cannot log in and its sessions stop
 *   working. TINYINT on MySQL and BOOLEAN on SQLite, as every boolean of the initial schema
 *   (see the note there on why not MySQL's `boolean` keyword).
 *
 * `users` has only its unique username index, which TypeORM's SQLite table rebuild behind
 * addColumn keeps.
 */
export class UserDisabled1795600000000 implements MigrationInterface {
  name = 'UserDisabled1795600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const type = isSqlite(queryRunner) ? 'boolean' : 'tinyint';
    await queryRunner.addColumn('users', new TableColumn({ name: 'disabled', type, isNullable: false, default: '0' }));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('users', 'disabled');
  }
}

function isSqlite(queryRunner: QueryRunner): boolean {
  const type = queryRunner.connection.options.type;
  return type === 'better-sqlite3' || type === 'sqlite';
}
