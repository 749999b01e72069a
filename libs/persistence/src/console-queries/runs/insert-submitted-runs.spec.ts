import { beforeEach, describe, expect, it } from 'vitest';
import { expectOneMadePerKey, keyOrders } from '../../../../../test/support/concurrent-keys';
import { TEST_DATABASES, useTestDatabase } from '../../../../../test/support/databases';
import { insertTask, seedTenant } from '../../../../../test/cluster/support/seed';
import { RunEntity } from '../../entities';
import { inTransaction } from '../../nest/transaction';
import { insertSubmittedRuns, type SubmittableTask } from './insert-submitted-runs';

const NOW = 1_790_000_000_123;

describe.each(TEST_DATABASES)('insertSubmittedRuns on %s', (kind) => {
  const db = useTestDatabase(kind);
  let task: SubmittableTask;

  beforeEach(async () => {
    await db.clear();
    const tenant = await seedTenant(db.dataSource, { id: 'acme', engineGroup: 'default' });
    const id = await insertTask(db.dataSource, tenant, { name: 'sync', trigger: { kind: 'MANUAL' }, priority: 3, params: { a: 1 } });
    task = { id, name: 'sync', engineGroup: 'default', priority: 3, params: '{"a":1}', executorApp: 'demo', handler: 'noop', debounce: null, throttle: null, version: 1 };
  });

  it('answers an unkeyed run exactly as the database holds it (made from the values written, not read back)', async () => {
    const written = await inTransaction(db.dataSource, (em) =>
      insertSubmittedRuns(em, 'acme', [
        { task, params: '{"k":"x","n":[1,2]}', flowParams: '{"f":true}', fireKey: 'm:11111111-1111-1111-1111-111111111111', traceParent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
        { task, params: task.params, flowParams: null, fireKey: 'm:22222222-2222-2222-2222-222222222222', cause: 'EVENT' },
      ], NOW),
    );
    expect(written.map((w) => w.created)).toEqual([true, true]);
    for (const { row } of written) {
      const stored = await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id: row.id });
      expect(row).toEqual(stored);
      expect(row).toBeInstanceOf(RunEntity);
    }
  });

  it('writes a run sent already (DirectStarts) DISPATCHED to its executor under its engine\'s lease, beside a run written PENDING, each answered as stored', async () => {
    const sent = { nodeId: 'node-1', leaseUntil: NOW + 15_000, executorId: 7, deadlineAt: NOW + 60_000 };
    const written = await inTransaction(db.dataSource, (em) =>
      insertSubmittedRuns(em, 'acme', [
        { task, params: '{"k":1}', flowParams: null, fireKey: 'm:44444444-4444-4444-4444-444444444444' },
        { task, params: '{"k":2}', flowParams: null, fireKey: 'm:55555555-5555-5555-5555-555555555555', sent },
      ], NOW),
    );
    const stored = await Promise.all(written.map(({ row }) => db.dataSource.getRepository(RunEntity).findOneByOrFail({ id: row.id })));
    expect(written.map((w) => w.row)).toEqual(stored);
    expect(stored.map((r) => r.params)).toEqual([{ k: 1 }, { k: 2 }]);
    expect(stored[0]).toMatchObject({ state: 'PENDING', claimedBy: null, executorId: null, dispatchedAt: null });
    expect(stored[1]).toMatchObject({ state: 'DISPATCHED', claimedBy: 'node-1', leaseUntil: NOW + 15_000, executorId: 7, dispatchedAt: NOW, deadlineAt: NOW + 60_000, attempt: 1 });
  });

  it('answers a repeated idempotency key with the run it made first, as stored', async () => {
    const first = await inTransaction(db.dataSource, (em) => insertSubmittedRuns(em, 'acme', [{ task, params: '{"v":1}', flowParams: null, fireKey: 'k:order-7' }], NOW));
    const again = await inTransaction(db.dataSource, (em) =>
      insertSubmittedRuns(em, 'acme', [
        { task, params: '{"v":2}', flowParams: null, fireKey: 'k:order-7' },
        { task, params: '{"v":3}', flowParams: null, fireKey: 'm:33333333-3333-3333-3333-333333333333' },
      ], NOW + 5),
    );
    expect(again[0]).toEqual({ row: first[0].row, created: false });
    expect(again[0].row.params).toEqual({ v: 1 });
    expect(again[1].created).toBe(true);
    expect(again[1].row.params).toEqual({ v: 3 });
  });

  it('makes each idempotency key one run once when concurrent batches write the same keys in different orders (two consoles)', async () => {
    const keys = Array.from({ length: 40 }, (_, i) => `k:order-${i}`);
    const orders = keyOrders(keys);
    const batches = await Promise.all(
      orders.map((order, batch) => inTransaction(db.dataSource, (em) => insertSubmittedRuns(em, 'acme', order.map((fireKey) => ({ task, params: `{"b":${batch}}`, flowParams: null, fireKey })), NOW))),
    );
    expectOneMadePerKey(keys, orders, batches);
    expect(await db.dataSource.getRepository(RunEntity).count()).toBe(keys.length);
  });

  it('tells idempotency keys apart by case, as the API defines them', async () => {
    const written = await inTransaction(db.dataSource, (em) =>
      insertSubmittedRuns(em, 'acme', [
        { task, params: '{"v":1}', flowParams: null, fireKey: 'k:Order-7' },
        { task, params: '{"v":2}', flowParams: null, fireKey: 'k:order-7' },
      ], NOW),
    );
    expect(written.map((w) => w.created)).toEqual([true, true]);
    expect(written[0].row.id).not.toBe(written[1].row.id);
  });

  it('gives each unkeyed run of concurrent batches its own id, without reading them back', async () => {
    const uuid = (batch: number, i: number) => `m:00000000-0000-4000-8000-${String(batch * 1000 + i).padStart(12, '0')}`;
    const batches = await Promise.all(
      [1, 2, 3, 4].map((batch) =>
        inTransaction(db.dataSource, (em) =>
          insertSubmittedRuns(em, 'acme', Array.from({ length: 60 }, (_, i) => ({ task, params: `{"b":${batch},"i":${i}}`, flowParams: null, fireKey: uuid(batch, i) })), NOW),
        ),
      ),
    );
    const stored = new Map((await db.dataSource.getRepository(RunEntity).find()).map((r) => [r.id, r]));
    const answered = batches.flat();
    expect(new Set(answered.map((w) => w.row.id)).size).toBe(240);
    for (const { row } of answered) expect(stored.get(row.id)?.fireKey).toBe(row.fireKey);
  });

  it('writes more runs in one call than one statement may bind (an event batch starting a run of each of many subscribers)', async () => {
    // 13 values a run: 2,600 runs of either kind are past SQLite's 32,766 bound parameters.
    const count = 2_600;
    const unkeyed = Array.from({ length: count }, (_, i) => ({ task, params: `{"i":${i}}`, flowParams: null, fireKey: `m:00000000-0000-4000-8000-${String(i).padStart(12, '0')}` }));
    const keyed = Array.from({ length: count }, (_, i) => ({ task, params: `{"i":${i}}`, flowParams: null, fireKey: `e:evt-${i}`, cause: 'EVENT' as const }));
    const written = await inTransaction(db.dataSource, (em) => insertSubmittedRuns(em, 'acme', [...unkeyed, ...keyed, keyed[0]], NOW));
    expect(written.map((w) => w.created)).toEqual([...Array(2 * count).fill(true), false]);
    expect(written[2 * count].row.id).toBe(written[count].row.id);
    const stored = new Map((await db.dataSource.getRepository(RunEntity).find()).map((r) => [r.id, r]));
    expect(stored.size).toBe(2 * count);
    for (const { row } of written) expect(stored.get(row.id)?.fireKey).toBe(row.fireKey);
  });
});
