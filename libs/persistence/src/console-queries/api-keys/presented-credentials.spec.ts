import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../../../test/support/databases';
import { ApiKeyEntity, SessionEntity, TenantEntity, UserEntity } from '../../entities';
import { findSessionUser } from '../sessions/find-session-user';
import { findPresentedApiKey } from './find-presented-api-key';

const T0 = Date.UTC(2026, 10, 28);

describe.each(TEST_DATABASES)('the credentials a request presents, in one statement, on %s', (kind) => {
  const db = useTestDatabase(kind);

  beforeAll(async () => {
    const ds = db.dataSource;
    await ds.getRepository(TenantEntity).insert({ id: 'acme', name: 'Acme', engineGroup: 'default', executorSecret: 's', createdAt: T0 });
    const user = (id: number, role: UserEntity['role'], disabled = false) => ({ id, tenantId: role === 'OPERATOR' ? null : 'acme', loginTenant: role === 'OPERATOR' ? '' : 'acme', username: `u${id}`, passwordHash: 'x', role, disabled, createdAt: T0 });
    await ds.getRepository(UserEntity).insert([user(1, 'TENANT_ADMIN'), user(2, 'TENANT_VIEWER', true), user(3, 'OPERATOR')]);
    const key = (id: number, tenantId: string, ownerUserId: number | null, revokedAt: number | null = null) => ({ id, tenantId, name: `k${id}`, prefix: `p${id}`, keyHash: `h${id}`, role: 'TENANT_ADMIN' as const, ownerUserId, createdAt: T0, revokedAt });
    // 1 owned, 2 without owner, 3 revoked, 4 of a tenant that is gone, 5 of an owner who is gone, 6 of a disabled owner.
    await ds.getRepository(ApiKeyEntity).insert([key(1, 'acme', 1), key(2, 'acme', null), key(3, 'acme', 1, T0), key(4, 'gone', null), key(5, 'acme', 99), key(6, 'acme', 2)]);
    await ds.getRepository(SessionEntity).insert([
      { id: 1, userId: 1, tokenHash: 't1', createdAt: T0, expiresAt: T0 + 1000 },
      { id: 2, userId: 3, tokenHash: 't2', createdAt: T0, expiresAt: T0 + 1000 },
      { id: 3, userId: 99, tokenHash: 't3', createdAt: T0, expiresAt: T0 + 1000 },
    ]);
  });

  it('an API key: live, of an existing tenant, with its owner as it is now (null when gone)', async () => {
    const m = db.dataSource.manager;
    expect(await findPresentedApiKey(m, 'h1')).toEqual({ id: 1, tenantId: 'acme', name: 'k1', role: 'TENANT_ADMIN', ownerUserId: 1, owner: { role: 'TENANT_ADMIN', disabled: false } });
    expect(await findPresentedApiKey(m, 'h2')).toMatchObject({ id: 2, ownerUserId: null, owner: null });
    expect(await findPresentedApiKey(m, 'h3')).toBeNull();
    expect(await findPresentedApiKey(m, 'h4')).toBeNull();
    expect(await findPresentedApiKey(m, 'h5')).toMatchObject({ id: 5, ownerUserId: 99, owner: null });
    expect(await findPresentedApiKey(m, 'h6')).toMatchObject({ owner: { role: 'TENANT_VIEWER', disabled: true } });
    expect(await findPresentedApiKey(m, 'nope')).toBeNull();
  });

  it('a session with its user (an operator has no tenant); none when the user is gone', async () => {
    const m = db.dataSource.manager;
    expect(await findSessionUser(m, 't1')).toEqual({ id: 1, expiresAt: T0 + 1000, user: { id: 1, username: 'u1', role: 'TENANT_ADMIN', tenantId: 'acme', disabled: false, ssoProvider: null } });
    expect(await findSessionUser(m, 't2')).toMatchObject({ user: { role: 'OPERATOR', tenantId: null } });
    expect(await findSessionUser(m, 't3')).toBeNull();
    expect(await findSessionUser(m, 'nope')).toBeNull();
  });
});
