import { beforeEach, describe, expect, it } from 'vitest';
import type { KeyDebounce, KeyThrottle } from '@baton/domain';
import { inTransaction, RunEntity, type SubmittableTask } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { insertTask, seedTenant } from '../../../../test/cluster/support/seed';
import { applyKeyWindows, windowFireKey, type WindowOutcome } from './key-windows';

const NOW = 1_790_000_000_000;

/**
 * Debounce and throttle per key against the database, on SQLite and MariaDB: what a submission
 * does to its key's COALESCING run and throttle period, and — the point of keeping them as rows —
 * that submissions of one key written by concurrent transactions (as several consoles write them)
 * still make one window and never let a throttle's period take more than its limit.
 */
describe.each(TEST_DATABASES)('key windows on %s', (kind) => {
  const db = useTestDatabase(kind);
  let base: SubmittableTask;
  let tenant: Awaited<ReturnType<typeof seedTenant>>;

  beforeEach(async () => {
    await db.clear();
    tenant = await seedTenant(db.dataSource, { id: 'acme', engineGroup: 'default' });
    const id = await insertTask(db.dataSource, tenant, { name: 'sync', trigger: { kind: 'MANUAL' } });
    base = { id, name: 'sync', engineGroup: 'default', priority: 0, params: null, executorApp: 'crm', handler: 'sync', debounce: null, throttle: null, version: 1 };
  });

  const debounced = (rule: Partial<KeyDebounce> = {}): SubmittableTask => ({ ...base, debounce: { key: 'customerId', quietMs: 1000, maxWaitMs: 5000, ...rule } });
  const throttled = (rule: Partial<KeyThrottle> = {}): SubmittableTask => ({ ...base, throttle: { key: 'customerId', limit: 2, periodMs: 1000, keep: 'LAST', ...rule } });
  const submit = (task: SubmittableTask, customerId: string, version: number, now: number): Promise<WindowOutcome[]> =>
    inTransaction(db.dataSource, (em) => applyKeyWindows(em, 'acme', [{ task, params: JSON.stringify({ customerId, version }), flowParams: null, cause: 'EVENT', traceParent: null }], now));
  const runs = () => db.dataSource.getRepository(RunEntity).find({ where: { taskId: base.id }, order: { id: 'ASC' } });
  const windowOf = (o: WindowOutcome) => (o.kind === 'WINDOW' ? o : null);

  it('debounce: opens a window, and each submission of its key replaces the params and moves its due time, never past its end', async () => {
    const task = debounced();
    const [first] = await submit(task, 'c1', 0, NOW);
    expect(first).toMatchObject({ kind: 'WINDOW', created: true, row: { state: 'COALESCING', dueAt: NOW + 1000, scheduledAt: NOW + 1000, windowUntil: NOW + 5000, fireKey: windowFireKey('c1'), params: { customerId: 'c1', version: 0 } } });
    const [joined] = await submit(task, 'c1', 1, NOW + 4500);
    expect(joined).toMatchObject({ kind: 'WINDOW', created: false, row: { id: windowOf(first)!.row.id, dueAt: NOW + 5000, params: { customerId: 'c1', version: 1 } } });
    const [other] = await submit(task, 'c2', 0, NOW + 4500);
    expect(windowOf(other)!.row.id).not.toBe(windowOf(first)!.row.id);
    expect(await runs()).toHaveLength(2);
  });

  it('debounce: a window whose run left COALESCING (claimed, cancelled) gives its name up; the next submission opens a new one', async () => {
    const task = debounced();
    const first = windowOf((await submit(task, 'c1', 0, NOW))[0])!.row.id;
    for (const state of ['CLAIMED', 'CANCELLED'] as const) {
      const before = (await runs()).at(-1)!.id;
      await db.dataSource.getRepository(RunEntity).update({ id: before }, { state });
      const next = windowOf((await submit(task, 'c1', 1, NOW + 100))[0])!;
      expect(next.created).toBe(true);
      expect(next.row.id).not.toBe(before);
      expect((await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id: before })).fireKey).toBe(`w#${before}`);
    }
    expect((await runs()).map((r) => r.id)[0]).toBe(first);
    expect((await runs()).map((r) => r.state)).toEqual(['CLAIMED', 'CANCELLED', 'COALESCING']);
  });

  it('throttle: the period\'s first `limit` start, the rest fold into one run at its end (LAST) or are dropped (FIRST); the period is stored', async () => {
    const last = throttled();
    const kinds = [];
    for (let i = 0; i < 4; i++) kinds.push((await submit(last, 'k', i, NOW + i))[0]);
    expect(kinds.map((o) => o.kind)).toEqual(['START', 'START', 'WINDOW', 'WINDOW']);
    expect(windowOf(kinds[3])!.row).toMatchObject({ dueAt: NOW + 1000, windowUntil: NOW + 1000, params: { customerId: 'k', version: 3 } });
    const first = { ...throttled({ keep: 'FIRST' }), id: (await insertTask(db.dataSource, tenant, { name: 'first', trigger: { kind: 'MANUAL' } })) };
    const dropped = [];
    for (let i = 0; i < 3; i++) dropped.push((await submit(first, 'k', i, NOW + i))[0]);
    expect(dropped.map((o) => o.kind)).toEqual(['START', 'START', 'DROP']);
    expect(dropped[2]).toMatchObject({ reason: expect.stringContaining('keep FIRST') });
    expect((await submit(first, 'k', 9, NOW + 1000))[0].kind).toBe('START');
  });

  it('concurrent submissions of one key (several consoles) make one window, and a throttle never starts more than its limit', { timeout: 60_000 }, async () => {
    const task = debounced();
    const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => submit(task, 'c1', i, NOW + i)));
    const windows = outcomes.map(([o]) => windowOf(o)!);
    expect(new Set(windows.map((w) => w.row.id)).size).toBe(1);
    expect(windows.filter((w) => w.created)).toHaveLength(1);
    const open = await runs();
    expect(open).toHaveLength(1);
    expect(open[0].state).toBe('COALESCING');

    const limited = { ...throttled({ keep: 'FIRST' }), id: await insertTask(db.dataSource, tenant, { name: 'limited', trigger: { kind: 'MANUAL' } }) };
    const decisions = await Promise.all(Array.from({ length: 8 }, (_, i) => submit(limited, 'k', i, NOW)));
    expect(decisions.map(([o]) => o.kind).sort()).toEqual(['DROP', 'DROP', 'DROP', 'DROP', 'DROP', 'DROP', 'START', 'START']);
  });
});
