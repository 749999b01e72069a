import { describe, expect, it } from 'vitest';
import { Accounts1796500000000 } from '../../../migrations/1796500000000-accounts';
import { TEST_DATABASES, useTestDatabase } from '../../../test/support/databases';
import { ApiKeyEntity, UserEntity } from './index';

/**
 * The accounts migration on a database that has users and keys already: every user's login names
 * its tenant (operators: none), names become unique per tenant, and the keys made before it have
 * no owner.
 */
describe.each(TEST_DATABASES)('accounts migration on %s', (kind) => {
  const db = useTestDatabase(kind);
  const migration = new Accounts1796500000000();

  it('fills login_tenant from tenant_id, keys keep no owner, and a name may then repeat across tenants but not among operators', async () => {
    const runner = db.dataSource.createQueryRunner();
    try {
      await migration.down(runner);
      await runner.query(
        "INSERT INTO users (tenant_id, username, password_hash, role, disabled, created_at) VALUES ('acme', 'alice', 'h', 'TENANT_ADMIN', 0, 1), (NULL, 'root', 'h', 'OPERATOR', 0, 1)",
      );
      await runner.query("INSERT INTO api_keys (tenant_id, name, prefix, key_hash, role, created_at) VALUES ('acme', 'ci', 'bk_x', 'k', 'TENANT_ADMIN', 1)");
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    const users = db.dataSource.getRepository(UserEntity);
    expect(await users.findOneByOrFail({ username: 'alice' })).toMatchObject({ tenantId: 'acme', loginTenant: 'acme' });
    expect(await users.findOneByOrFail({ username: 'root' })).toMatchObject({ tenantId: null, loginTenant: '' });
    expect(await db.dataSource.getRepository(ApiKeyEntity).findOneByOrFail({ name: 'ci' })).toMatchObject({ ownerUserId: null });

    await users.insert({ tenantId: 'beta', loginTenant: 'beta', username: 'alice', passwordHash: 'h', role: 'TENANT_ADMIN', createdAt: 2 });
    await expect(users.insert({ tenantId: null, loginTenant: '', username: 'root', passwordHash: 'h', role: 'OPERATOR', createdAt: 2 })).rejects.toThrow();
    await expect(db.dataSource.query("INSERT INTO users (tenant_id, username, password_hash, role, disabled, created_at) VALUES ('acme', 'bob', 'h', 'TENANT_ADMIN', 0, 1)")).rejects.toThrow();
  });
});
