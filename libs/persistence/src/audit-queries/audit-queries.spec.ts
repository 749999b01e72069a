import { describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { inTransaction } from '../nest/transaction';
import { insertAuditRecord, type NewAuditRecord } from './insert-audit-record';
import { listAuditRecords } from './list-audit-records';
import { purgeAuditRecords } from './purge-audit-records';

const record = (tenantId: string | null, at: number, action = 'task.update'): NewAuditRecord => ({
  at,
  tenantId,
  actorKind: 'user',
  actorName: 'ann',
  actorUserId: 1,
  actorApiKeyId: null,
  sourceAddress: '127.0.0.1',
  action,
  objectType: 'task',
  objectId: '7',
  before: null,
  after: { big: 'x'.repeat(70_000) },
});

describe.each(TEST_DATABASES)('audit queries on %s', (kind) => {
  const db = useTestDatabase(kind);

  it('keeps an oversized value as a marker rather than failing the change', async () => {
    await inTransaction(db.dataSource, (em) => insertAuditRecord(em, record('acme', 5)));
    const [row] = await listAuditRecords(db.dataSource.manager, { tenantId: 'acme', limit: 1 });
    expect(row.after).toEqual({ truncated: true, bytes: expect.any(Number) });
    await db.clear();
  });

  it('pages newest first by (at, id) and filters by time', async () => {
    for (const at of [10, 20, 20, 30]) await inTransaction(db.dataSource, (em) => insertAuditRecord(em, record('acme', at)));
    const first = await listAuditRecords(db.dataSource.manager, { tenantId: 'acme', limit: 2 });
    expect(first.map((r) => r.at)).toEqual([30, 20]);
    const next = await listAuditRecords(db.dataSource.manager, { tenantId: 'acme', after: { at: first[1].at, id: first[1].id }, limit: 2 });
    expect(next.map((r) => r.at)).toEqual([20, 10]);
    expect((await listAuditRecords(db.dataSource.manager, { tenantId: 'acme', from: 20, to: 30, limit: 10 })).map((r) => r.at)).toEqual([20, 20]);
    await db.clear();
  });

  it("purges a tenant's records older than the ceiling, and the operators' (no tenant), nothing else", async () => {
    for (const [tenant, at] of [['acme', 10], ['acme', 100], ['globex', 10], [null, 10], [null, 100]] as const) {
      await inTransaction(db.dataSource, (em) => insertAuditRecord(em, record(tenant, at)));
    }
    expect(await inTransaction(db.dataSource, (em) => purgeAuditRecords(em, { tenantId: 'acme', before: 50, limit: 10 }))).toBe(1);
    expect(await inTransaction(db.dataSource, (em) => purgeAuditRecords(em, { tenantId: null, before: 50, limit: 10 }))).toBe(1);
    const left = await listAuditRecords(db.dataSource.manager, { limit: 10 });
    expect(left.map((r) => [r.tenantId, r.at]).sort()).toEqual([['acme', 100], ['globex', 10], [null, 100]].sort());
  });
});
