import type { QueryRunner } from 'typeorm';
import { beforeEach, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../../../test/support/databases';
import { RunEntity } from '../entities';

/**
 * Proof that the claim path works on the cluster database: engines claim due runs with
 * `SELECT … FOR UPDATE SKIP LOCKED LIMIT n` (MySQL 8 / MariaDB ≥ 10.6), so concurrent claimers
 * get disjoint rows without waiting for each other and without any table-wide or global lock.
 * MySQL only: SQLite has no row locks (embedded mode runs one engine).
 */
const T = 1_732_240_000_000;
const CLAIM_SQL = `
  SELECT id FROM runs
  WHERE engine_group = ? AND state = 'PENDING' AND tenant_id = 'acme' AND due_at <= ?
  ORDER BY due_at, priority DESC, id  -- the engine's claim order within a tenant; matches ix_runs_claim, so no filesort
  LIMIT ?
  FOR UPDATE SKIP LOCKED`;

describe('claiming runs with FOR UPDATE SKIP LOCKED on mysql', () => {
  const db = useTestDatabase('mysql');
  let ids: number[];

  beforeEach(async () => {
    await db.clear();
    const repo = db.dataSource.getRepository(RunEntity);
    const base = { tenantId: 'acme', engineGroup: 'default', state: 'PENDING' as const, cause: 'SCHEDULE' as const, params: {}, createdAt: T, updatedAt: T };
    const due = Array.from({ length: 10 }, (_, i) => repo.create({ ...base, taskId: 1, fireKey: `s:${T + i}`, scheduledAt: T + i, dueAt: T + i }));
    ids = (await repo.save(due)).map((r) => r.id);
    // Noise the claim must not touch: another group, not yet due, not PENDING.
    await repo.save([
      repo.create({ ...base, taskId: 2, engineGroup: 'other', fireKey: 's:1', scheduledAt: T, dueAt: T }),
      repo.create({ ...base, taskId: 2, fireKey: 's:2', scheduledAt: T + 10 * 60_000, dueAt: T + 10 * 60_000 }),
      repo.create({ ...base, taskId: 2, fireKey: 's:3', state: 'SUCCEEDED', scheduledAt: T, dueAt: T }),
    ]);
  });

  async function openTx(): Promise<QueryRunner> {
    const qr = db.dataSource.createQueryRunner();
    await qr.connect();
    // A regression (blocking instead of skipping) must fail fast, not wait 50 s.
    await qr.query('SET SESSION innodb_lock_wait_timeout = 3');
    await qr.startTransaction('READ COMMITTED');
    return qr;
  }

  async function claim(qr: QueryRunner, limit: number): Promise<number[]> {
    const rows: Array<{ id: number | string }> = await qr.query(CLAIM_SQL, ['default', T + 60_000, limit]);
    return rows.map((r) => Number(r.id));
  }

  it('two concurrent transactions claim disjoint rows, the second without waiting', async () => {
    const a = await openTx();
    const b = await openTx();
    try {
      const claimedA = await claim(a, 4);
      const claimedB = await claim(b, 4); // A still holds its row locks: waiting for them would fail after innodb_lock_wait_timeout

      expect(claimedA).toEqual(ids.slice(0, 4));
      expect(claimedB).toEqual(ids.slice(4, 8));

      // Each takes ownership of its rows (the guarded update), then commits.
      for (const [qr, claimed, engine] of [[a, claimedA, 'engine-a'], [b, claimedB, 'engine-b']] as const) {
        const res = await qr.query(
          `UPDATE runs SET state = 'CLAIMED', claimed_by = ?, lease_until = ? WHERE state = 'PENDING' AND id IN (${claimed.map(() => '?').join(',')})`,
          [engine, T + 30_000, ...claimed],
        );
        expect(res.affectedRows).toBe(claimed.length);
      }
      await a.commitTransaction();
      await b.commitTransaction();
    } finally {
      await a.release();
      await b.release();
    }

    const rows = await db.dataSource.getRepository(RunEntity).find({ order: { id: 'ASC' } });
    const owner = (id: number) => rows.find((r) => r.id === id)?.claimedBy;
    expect(ids.slice(0, 4).map(owner)).toEqual(Array(4).fill('engine-a'));
    expect(ids.slice(4, 8).map(owner)).toEqual(Array(4).fill('engine-b'));
    expect(ids.slice(8).map(owner)).toEqual([null, null]);
  });

  it('a third claimer gets only what is left, and rows come back after a rollback', async () => {
    const a = await openTx();
    const b = await openTx();
    const c = await openTx();
    try {
      expect(await claim(a, 4)).toEqual(ids.slice(0, 4));
      expect(await claim(b, 4)).toEqual(ids.slice(4, 8));
      expect(await claim(c, 4)).toEqual(ids.slice(8, 10)); // only 2 left; noise rows untouched
      await a.rollbackTransaction(); // engine A died before taking ownership
      await c.rollbackTransaction();
      const d = await openTx();
      try {
        expect(await claim(d, 10)).toEqual([...ids.slice(0, 4), ...ids.slice(8, 10)]);
        await d.commitTransaction();
      } finally {
        await d.release();
      }
      await b.commitTransaction();
    } finally {
      for (const qr of [a, b, c]) {
        if (qr.isTransactionActive) await qr.rollbackTransaction();
        await qr.release();
      }
    }
  });
});
