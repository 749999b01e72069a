import { describe, expect, it } from 'vitest';
import { ApiKeyEntity, revokeApiKey } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { seedTenant } from '../../../../test/cluster/support/seed';
import { insertApiKey } from '../../../../test/console/console-test-kit';
import { ManualClock } from '../common/clock';
import type { ResolvedConsoleOptions } from '../common/options';
import { API_KEY_CHECK_KEEP_MS, AuthService } from './auth.service';

/**
 * The API key check keeps a working key's row for API_KEY_CHECK_KEEP_MS: a revocation written
 * through this process is seen at once, one written by another process (here: straight to the
 * database) within that bound.
 */
describe.each(TEST_DATABASES)('API key check on %s', (kind) => {
  const db = useTestDatabase(kind);

  const setUp = async (tenantId: string) => {
    await seedTenant(db.dataSource, { id: tenantId, engineGroup: 'default' });
    const headers = await insertApiKey(db.dataSource, tenantId, 'TENANT_ADMIN');
    const clock = new ManualClock(1_790_000_000_000);
    const auth = new AuthService(db.dataSource, clock, { passwordHashRounds: 4 } as ResolvedConsoleOptions);
    const check = () => auth.authenticate({ 'x-api-key': headers['X-API-Key'] });
    const keyId = (await db.dataSource.getRepository(ApiKeyEntity).findOneByOrFail({ tenantId })).id;
    return { clock, check, keyId };
  };

  it('a key revoked by another process works on for at most API_KEY_CHECK_KEEP_MS, then is refused', async () => {
    const { clock, check, keyId } = await setUp('keep-a');
    expect((await check())?.tenantId).toBe('keep-a');
    await db.dataSource.getRepository(ApiKeyEntity).update({ id: keyId }, { revokedAt: clock.now() });
    expect((await check())?.tenantId).toBe('keep-a');
    clock.set(clock.now() + API_KEY_CHECK_KEEP_MS);
    await expect(check()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('a key revoked through this process is refused at once', async () => {
    const { clock, check, keyId } = await setUp('keep-b');
    expect((await check())?.tenantId).toBe('keep-b');
    await revokeApiKey(db.dataSource.manager, { tenantId: 'keep-b', id: keyId, now: clock.now() });
    await expect(check()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });
});
