import { beforeEach, describe, expect, it } from 'vitest';
import { inTransaction, listAuditRecords } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { anonymousActor } from './audit-actor';
import { recordAudit } from './record-audit';
import { REDACTED } from '@baton/domain';

describe.each(TEST_DATABASES)('recordAudit on %s', (kind) => {
  const db = useTestDatabase(kind);
  // Each test reads the audit log whole: it starts empty, whatever ran before.
  beforeEach(() => db.clear());
  const entry = (action: string, tenantId: string) => ({
    actor: anonymousActor('mallory', '10.0.0.9'),
    at: 1_000,
    action,
    tenantId,
    objectType: 'user',
    objectId: 7,
    before: null,
    after: { username: 'mallory', password: 'hunter2' },
  });

  it('keeps the record of a committed change, redacted, and none of a rolled-back one', async () => {
    await inTransaction(db.dataSource, (em) => recordAudit(em, entry('auth.login-failed', 'acme')));
    await expect(
      inTransaction(db.dataSource, async (em) => {
        await recordAudit(em, entry('user.create', 'acme'));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    const rows = await listAuditRecords(db.dataSource.manager, { tenantId: 'acme', limit: 10 });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ action: 'auth.login-failed', actorKind: 'anonymous', actorName: 'mallory', sourceAddress: '10.0.0.9', objectId: '7', after: { username: 'mallory', password: REDACTED } });
  });

  it("filters by tenant first: a tenant never reads another tenant's records", async () => {
    await inTransaction(db.dataSource, (em) => recordAudit(em, entry('auth.login-failed', 'acme')));
    await inTransaction(db.dataSource, (em) => recordAudit(em, entry('task.create', 'globex')));
    expect((await listAuditRecords(db.dataSource.manager, { tenantId: 'globex', limit: 10 })).map((r) => r.tenantId)).toEqual(['globex']);
    expect((await listAuditRecords(db.dataSource.manager, { limit: 10 })).map((r) => r.tenantId).sort()).toEqual(['acme', 'globex']);
    expect(await listAuditRecords(db.dataSource.manager, { tenantId: 'globex', action: 'auth.login-failed', limit: 10 })).toEqual([]);
  });
});
