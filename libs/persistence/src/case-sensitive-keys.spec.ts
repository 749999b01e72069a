import { beforeEach, describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../test/support/databases';
import { insertTask, seedTenant } from '../../../test/cluster/support/seed';
import { findEventSubscribers, listEvents } from './console-queries/events';
import { EventEntity, RunEntity, RunKeyEntity, TaskEntity } from './entities';

const NOW = 1_790_000_000_000;

/**
 * Keys a tenant gives — idempotency keys, concurrency and rate key values, key group names — are
 * compared as given, case included, on both databases (migration 1798500000000-case-sensitive-keys:
 * MySQL's utf8mb4_unicode_ci folded case; SQLite never did).
 */
describe.each(TEST_DATABASES)('keys keep their case on %s', (kind) => {
  const db = useTestDatabase(kind);
  let taskId: number;

  beforeEach(async () => {
    await db.clear();
    const tenant = await seedTenant(db.dataSource, { id: 'acme', engineGroup: 'default' });
    taskId = await insertTask(db.dataSource, tenant, { name: 'sync', trigger: { kind: 'MANUAL' } });
  });

  const run = (fireKey: string, extra: Partial<RunEntity> = {}) =>
    db.dataSource.getRepository(RunEntity).insert({
      tenantId: 'acme', taskId, engineGroup: 'default', state: 'PENDING', cause: 'MANUAL', fireKey, attempt: 1, priority: 0,
      params: null, scheduledAt: NOW, dueAt: NOW, createdAt: NOW, updatedAt: NOW, ...extra,
    });

  it('idempotency keys: runs under `k:Order-7` and `k:order-7` are two runs, events under `Pay-1` and `pay-1` two events', async () => {
    await run('k:Order-7');
    await run('k:order-7');
    await expect(run('k:order-7')).rejects.toThrow(); // the same key, exactly: one run
    const event = (idempotencyKey: string) => db.dataSource.getRepository(EventEntity).insert({ tenantId: 'acme', name: 'paid', payload: {}, idempotencyKey, runIds: [], receivedAt: NOW });
    await event('Pay-1');
    await event('pay-1');
    await expect(event('pay-1')).rejects.toThrow();
    expect(await db.dataSource.getRepository(RunEntity).count()).toBe(2);
    expect(await db.dataSource.getRepository(EventEntity).count()).toBe(2);
  });

  it('concurrency key values and key groups: `Acme` and `acme`, `g:Billing` and `g:billing` are each two keys', async () => {
    const key = (keyScope: string, keyValue: string) => db.dataSource.getRepository(RunKeyEntity).insert({ tenantId: 'acme', keyScope, keyValue });
    await key(`t:${taskId}`, 'Acme');
    await key(`t:${taskId}`, 'acme');
    await key('g:Billing', 'acme');
    await key('g:billing', 'acme');
    await expect(key('g:billing', 'acme')).rejects.toThrow();
    expect(await db.dataSource.getRepository(RunKeyEntity).count()).toBe(4);
    await run('m:1', { runKey: 'Acme', keyScope: `t:${taskId}` });
    await run('m:2', { runKey: 'acme', keyScope: `t:${taskId}` });
    const found = await db.dataSource.getRepository(RunEntity).findBy({ runKey: 'acme' });
    expect(found.map((r) => r.fireKey)).toEqual(['m:2']);
  });

  it('event names (1798800000000-case-sensitive-event-names): `Paid` and `paid` are two, listed and subscribed to apart', async () => {
    const event = (name: string, receivedAt: number) => db.dataSource.getRepository(EventEntity).insert({ tenantId: 'acme', name, payload: {}, idempotencyKey: null, runIds: [], receivedAt });
    await event('Paid', NOW);
    await event('paid', NOW + 1);
    await event('PAID', NOW + 2);
    const page = await listEvents(db.dataSource.manager, { tenantId: 'acme', name: 'paid', from: 0, to: NOW + 10, after: null, scanBudget: 0, limit: 10 });
    expect(page.rows.map((e) => e.name)).toEqual(['paid']);
    await db.dataSource.getRepository(TaskEntity).update({ id: taskId }, { triggerKind: 'EVENT', eventName: 'Paid' });
    expect(await findEventSubscribers(db.dataSource.manager, 'acme', ['paid'])).toEqual([]);
    expect((await findEventSubscribers(db.dataSource.manager, 'acme', ['Paid'])).map((s) => s.taskId)).toEqual([taskId]);
  });
});
