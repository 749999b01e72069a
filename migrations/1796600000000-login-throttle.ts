import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * The login throttle in the database (issue 25): `login_throttle` (throttle_key CHAR-like
 * VARCHAR(64) primary key — a SHA-256 in hex —, failures, last_failure_at, wait_until), so that
 * every console of a cluster counts the same failures. Indexed by last_failure_at for the sweep
 * of keys quiet long enough to be forgotten.
 */
export class LoginThrottle1796600000000 implements MigrationInterface {
  name = 'LoginThrottle1796600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'login_throttle',
        columns: [
          { name: 'throttle_key', type: 'varchar', length: '64', isPrimary: true },
          { name: 'failures', type: 'integer' },
          { name: 'last_failure_at', type: 'bigint' },
          { name: 'wait_until', type: 'bigint' },
        ],
      }),
    );
    await queryRunner.createIndex('login_throttle', new TableIndex({ name: 'ix_login_throttle_last_failure', columnNames: ['last_failure_at'] }));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('login_throttle');
  }
}
