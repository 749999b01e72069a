import { beforeEach, describe, expect, it } from 'vitest';
import { expectOneMadePerKey, keyOrders } from '../../../../../test/support/concurrent-keys';
import { TEST_DATABASES, useTestDatabase } from '../../../../../test/support/databases';
import { seedTenant } from '../../../../../test/cluster/support/seed';
import { EventEntity } from '../../entities';
import { inTransaction } from '../../nest/transaction';
import { insertEvents } from './insert-events';
import { setEventRunIds } from './set-event-run-ids';

const NOW = 1_790_000_000_123;

describe.each(TEST_DATABASES)('insertEvents on %s', (kind) => {
  const db = useTestDatabase(kind);

  beforeEach(async () => {
    await db.clear();
    await seedTenant(db.dataSource, { id: 'acme', engineGroup: 'default' });
  });

  it('stores each idempotency key once, made once, when concurrent batches store the same keys in different orders (two consoles)', async () => {
    const keys = Array.from({ length: 40 }, (_, i) => `Pay-${i}`);
    const orders = keyOrders(keys);
    const batches = await Promise.all(
      orders.map((order, batch) =>
        inTransaction(db.dataSource, (em) => insertEvents(em, 'acme', order.map((idempotencyKey) => ({ name: 'order.paid', payload: `{"b":${batch}}`, idempotencyKey, runIds: [] })), NOW)),
      ),
    );
    expectOneMadePerKey(keys, orders, batches);
    expect(await db.dataSource.getRepository(EventEntity).count()).toBe(keys.length);
  });

  it('tells idempotency keys apart by case, as the API defines them', async () => {
    const [upper, lower] = await inTransaction(db.dataSource, (em) =>
      insertEvents(em, 'acme', [
        { name: 'a', payload: '{}', idempotencyKey: 'Pay-1', runIds: [] },
        { name: 'a', payload: '{}', idempotencyKey: 'pay-1', runIds: [] },
      ], NOW),
    );
    expect([upper.created, lower.created]).toEqual([true, true]);
    expect(upper.row.id).not.toBe(lower.row.id);
  });

  it('answers a key given twice in one batch as made once, by its first', async () => {
    const [first, second, plain] = await inTransaction(db.dataSource, (em) =>
      insertEvents(em, 'acme', [
        { name: 'a', payload: '{}', idempotencyKey: 'twice', runIds: [1] },
        { name: 'a', payload: '{"again":true}', idempotencyKey: 'twice', runIds: [2] },
        { name: 'b', payload: '{}', idempotencyKey: null, runIds: [] },
      ], NOW),
    );
    expect([first.created, second.created, plain.created]).toEqual([true, false, true]);
    expect(second.row.id).toBe(first.row.id);
    expect(first.row.runIds).toEqual([1]);
  });

  it('answers each unkeyed event of a batch, stored in one statement, with its own id, among keyed ones and beside another transaction', async () => {
    const batch = (tag: string) =>
      Array.from({ length: 12 }, (_, i) => ({ name: `${tag}.${i}`, payload: JSON.stringify({ tag, i }), idempotencyKey: i % 4 === 3 ? `${tag}-key-${i}` : null, runIds: [i] }));
    const answers = await Promise.all(['x', 'y'].map((tag) => inTransaction(db.dataSource, (em) => insertEvents(em, 'acme', batch(tag), NOW))));
    const stored = new Map((await db.dataSource.getRepository(EventEntity).find()).map((row) => [row.id, row]));
    expect(stored.size).toBe(24);
    for (const [b, tag] of ['x', 'y'].entries()) {
      for (const [i, { row, created }] of answers[b].entries()) {
        expect(created).toBe(true);
        expect(stored.get(row.id)).toMatchObject({ name: `${tag}.${i}`, payload: { tag, i }, runIds: [i], idempotencyKey: i % 4 === 3 ? `${tag}-key-${i}` : null });
        expect(row).toMatchObject({ name: `${tag}.${i}`, payload: { tag, i }, runIds: [i] });
      }
    }
  });

  it('stores more events than one statement takes, answering each: the keys stored before with their events, the new ones as written', async () => {
    const before = await inTransaction(db.dataSource, (em) => insertEvents(em, 'acme', Array.from({ length: 10 }, (_, i) => ({ name: 'old', payload: '{}', idempotencyKey: `k-${i * 70}`, runIds: [i] })), NOW));
    const events = Array.from({ length: 1_300 }, (_, i) => ({ name: `e.${i}`, payload: JSON.stringify({ i }), idempotencyKey: i % 2 === 0 ? `k-${i}` : null, runIds: [] }));
    const answers = await inTransaction(db.dataSource, (em) => insertEvents(em, 'acme', events, NOW + 1));
    const stored = new Map((await db.dataSource.getRepository(EventEntity).find()).map((row) => [row.id, row]));
    expect(stored.size).toBe(10 + 1_300 - 10);
    const old = new Map(before.map(({ row }) => [row.idempotencyKey, row.id]));
    for (const [i, { row, created }] of answers.entries()) {
      const oldId = old.get(`k-${i}`);
      expect(created).toBe(oldId === undefined);
      expect(row).toEqual(stored.get(row.id));
      if (oldId !== undefined) expect(row.id).toBe(oldId);
      else expect(row).toMatchObject({ name: `e.${i}`, payload: { i }, idempotencyKey: i % 2 === 0 ? `k-${i}` : null, receivedAt: NOW + 1 });
    }
  });

  it('writes the run ids of events stored before their runs (setEventRunIds), leaving the other events as they are', async () => {
    const [a, b, c] = await inTransaction(db.dataSource, (em) =>
      insertEvents(em, 'acme', ['a', 'b', 'c'].map((key) => ({ name: 'order.paid', payload: '{}', idempotencyKey: key, runIds: [] })), NOW),
    );
    await inTransaction(db.dataSource, (em) => setEventRunIds(em, 'acme', [{ id: a.row.id, runIds: [7, 8] }, { id: b.row.id, runIds: [9] }]));
    await inTransaction(db.dataSource, (em) => setEventRunIds(em, 'other-tenant', [{ id: c.row.id, runIds: [1] }]));
    const runIds = async (id: number) => (await db.dataSource.getRepository(EventEntity).findOneByOrFail({ id })).runIds;
    expect([await runIds(a.row.id), await runIds(b.row.id), await runIds(c.row.id)]).toEqual([[7, 8], [9], []]);
  });
});
