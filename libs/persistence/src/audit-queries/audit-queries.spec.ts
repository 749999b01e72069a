import { beforeEach, describe, expect, it } from 'vitest';
import { useTestDatabase as useDatabase } from '../../../../test/support/databases';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { inTransaction } from '../nest/transaction';
import { insertAuditRecords, type NewAuditRecord } from './insert-audit-record';
import { auditListSql, listAuditRecords, type AuditFilter } from './list-audit-records';
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
  // Each test reads the audit log whole: it starts empty, whatever ran before.
  beforeEach(() => db.clear());

  it('keeps an oversized value as a marker rather than failing the change', async () => {
    await inTransaction(db.dataSource, (em) => insertAuditRecords(em, [record('acme', 5)]));
    const [row] = await listAuditRecords(db.dataSource.manager, { tenantId: 'acme', limit: 1 });
    expect(row.after).toEqual({ truncated: true, bytes: expect.any(Number) });
  });

  it('pages newest first by (at, id) and filters by time', async () => {
    for (const at of [10, 20, 20, 30]) await inTransaction(db.dataSource, (em) => insertAuditRecords(em, [record('acme', at)]));
    const first = await listAuditRecords(db.dataSource.manager, { tenantId: 'acme', limit: 2 });
    expect(first.map((r) => r.at)).toEqual([30, 20]);
    const next = await listAuditRecords(db.dataSource.manager, { tenantId: 'acme', after: { at: first[1].at, id: first[1].id }, limit: 2 });
    expect(next.map((r) => r.at)).toEqual([20, 10]);
    expect((await listAuditRecords(db.dataSource.manager, { tenantId: 'acme', from: 20, to: 30, limit: 10 })).map((r) => r.at)).toEqual([20, 20]);
  });

  it("purges a tenant's records older than the ceiling, and the operators' (no tenant), nothing else", async () => {
    for (const [tenant, at] of [['acme', 10], ['acme', 100], ['globex', 10], [null, 10], [null, 100]] as const) {
      await inTransaction(db.dataSource, (em) => insertAuditRecords(em, [record(tenant, at)]));
    }
    expect(await inTransaction(db.dataSource, (em) => purgeAuditRecords(em, { tenantId: 'acme', before: 50, limit: 10 }))).toBe(1);
    expect(await inTransaction(db.dataSource, (em) => purgeAuditRecords(em, { tenantId: null, before: 50, limit: 10 }))).toBe(1);
    const left = await listAuditRecords(db.dataSource.manager, { limit: 10 });
    expect(left.map((r) => [r.tenantId, r.at]).sort()).toEqual([['acme', 100], ['globex', 10], [null, 100]].sort());
  });
});

/** The plan of each filter of the audit page on MariaDB: one index range in the page's order, no sort. */
describe('audit query plans on mysql', () => {
  const db = useDatabase('mysql');

  it('reads each filter of the audit page from its index, in order, without a sort', async () => {
    for (let i = 0; i < 300; i++) {
      await insertAuditRecords(db.dataSource.manager, [{ ...record(i % 3 === 0 ? 'acme' : `t${i % 7}`, 1000 + i, i % 2 ? 'task.update' : 'user.create'), after: null, actorName: `u${i % 5}`, objectId: String(i % 40) }]);
    }
    await db.dataSource.query('ANALYZE TABLE audit_log');
    const cases: Array<[Omit<AuditFilter, 'limit'>, string]> = [
      [{ tenantId: 'acme' }, 'ix_audit_tenant_time'],
      [{ tenantId: 'acme', from: 1100, to: 1200 }, 'ix_audit_tenant_time'],
      [{ tenantId: 'acme', actorName: 'u1' }, 'ix_audit_tenant_actor'],
      [{ tenantId: 'acme', action: 'task.update' }, 'ix_audit_tenant_action'],
      [{ tenantId: 'acme', objectType: 'task', objectId: '7' }, 'ix_audit_tenant_object'],
      [{ tenantId: 'acme', after: { at: 1200, id: 200 } }, 'ix_audit_tenant_time'],
      [{ from: 1100, to: 1110 }, 'ix_audit_at'],
    ];
    for (const [filter, index] of cases) {
      // A page small beside the table, as a page of a real log is.
      const { sql, params } = auditListSql({ ...filter, limit: 10 });
      const [plan] = (await db.dataSource.query(`EXPLAIN ${sql}`, params)) as Array<{ key: string | null; Extra: string | null }>;
      expect(plan.key, JSON.stringify(filter)).toBe(index);
      expect(plan.Extra ?? '', JSON.stringify(filter)).not.toMatch(/filesort/);
    }
  });
});
