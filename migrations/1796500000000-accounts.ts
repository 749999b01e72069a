import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/**
 * Accounts and keys (issue 21).
 *
 * 1. `users.login_tenant` VARCHAR(64) NOT NULL: the tenant a login names (the user's tenant id,
 *    '' for an operator), filled from `tenant_id`. The unique key on `username` alone becomes
 *    `uq_users_login` (login_tenant, username): names are unique per tenant, so creating a user
 *    tells nothing about other tenants' names. Not `tenant_id` in the key: a unique index lets
 *    NULLs repeat, which would let two operators share a name. Added nullable, filled, then made
 *    NOT NULL without a default, so a row written without it is refused rather than landing among
 *    the operators' names.
 * 2. `api_keys.owner_user_id` INT NULL, indexed: the user who made the key (its keys are revoked
 *    when that user is disabled, deleted or demoted). Keys made before stay NULL: owner unknown.
 *
 * `down` brings the global unique name back, so it fails while two tenants share a user name.
 */
export class Accounts1796500000000 implements MigrationInterface {
  name = 'Accounts1796500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const loginTenant = new TableColumn({ name: 'login_tenant', type: 'varchar', length: '64', isNullable: true });
    await queryRunner.addColumn('users', loginTenant);
    await queryRunner.query("UPDATE users SET login_tenant = COALESCE(tenant_id, '')");
    await queryRunner.changeColumn('users', 'login_tenant', new TableColumn({ name: 'login_tenant', type: 'varchar', length: '64', isNullable: false }));
    await queryRunner.dropIndex('users', 'uq_users_username');
    await queryRunner.createIndex('users', new TableIndex({ name: 'uq_users_login', columnNames: ['login_tenant', 'username'], isUnique: true }));

    await queryRunner.addColumn('api_keys', new TableColumn({ name: 'owner_user_id', type: 'integer', isNullable: true }));
    await queryRunner.createIndex('api_keys', new TableIndex({ name: 'ix_api_keys_owner', columnNames: ['owner_user_id'] }));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('api_keys', 'ix_api_keys_owner');
    await queryRunner.dropColumn('api_keys', 'owner_user_id');
    await queryRunner.dropIndex('users', 'uq_users_login');
    await queryRunner.createIndex('users', new TableIndex({ name: 'uq_users_username', columnNames: ['username'], isUnique: true }));
    await queryRunner.dropColumn('users', 'login_tenant');
  }
}
