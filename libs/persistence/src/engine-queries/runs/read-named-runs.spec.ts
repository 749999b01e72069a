import { beforeEach, describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../../../test/support/databases';
import { addDependency, insertTask, seedTenant } from '../../../../../test/cluster/support/seed';
import { insertSubmittedRuns, type SubmittableTask } from '../../console-queries/runs/insert-submitted-runs';
import { lockSubmittedTasks } from '../../console-queries/tasks/lock-submitted-tasks';
import { inTransaction } from '../../nest/transaction';
import { namedRunColumns, namedRunOf, readNamedRuns } from './read-named-runs';

const NOW = 1_790_000_000_123;

describe.each(TEST_DATABASES)("a wake-up's run rows (namedRunColumns) on %s", (kind) => {
  const db = useTestDatabase(kind);
  let tasks: SubmittableTask[];

  beforeEach(async () => {
    await db.clear();
    const tenant = await seedTenant(db.dataSource, { id: 'acme', engineGroup: 'default' });
    // Tasks whose dispatch fields differ in every way a dispatch reads: retry, timeouts, keys, alarms, children, fixed delay.
    const plain = await insertTask(db.dataSource, tenant, { name: 'plain', trigger: { kind: 'MANUAL' }, priority: 3, params: { a: 1 } });
    const rich = await insertTask(db.dataSource, tenant, {
      name: 'rich',
      trigger: { kind: 'FIXED_DELAY', delayMs: 60_000 },
      executorApp: 'billing',
      handler: 'charge',
      timeoutMs: 12_345,
      startDeadlineMs: 2_500,
      retry: { maxAttempts: 4, backoffBaseMs: 250, backoffMaxMs: 9_000, jitter: 0.2 },
      concurrency: { key: 'customerId', limit: 1, onLimit: 'QUEUE' },
      alarms: { types: ['FAILED', 'TIMEOUT'], silenceMs: 30_000 },
    });
    const child = await insertTask(db.dataSource, tenant, { name: 'child', trigger: { kind: 'MANUAL' } });
    await addDependency(db.dataSource, tenant, rich, child);
    tasks = [plain, rich].map((id, i) => ({ id, name: ['plain', 'rich'][i], engineGroup: 'default', priority: i === 0 ? 3 : 0, params: i === 0 ? '{"a":1}' : '{}', executorApp: 'demo', handler: 'noop', debounce: null, throttle: null, version: 1 }));
  });

  it('dispatch exactly what the engine would read back once they are committed', async () => {
    const { written, locked } = await inTransaction(db.dataSource, async (em) => {
      const locking = lockSubmittedTasks(em, 'acme', tasks.map((t) => t.id));
      locking.catch(() => undefined); // awaited below; a failing INSERT fails the test there
      const written = await insertSubmittedRuns(em, 'acme', [
        { task: tasks[0], params: '{"k":"x","n":[1,2]}', flowParams: '{"f":true}', fireKey: 'm:11111111-1111-1111-1111-111111111111', traceParent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
        { task: tasks[1], params: '{}', flowParams: null, fireKey: 'm:22222222-2222-2222-2222-222222222222', cause: 'EVENT' },
        { task: tasks[1], params: '"text"', flowParams: null, fireKey: 'k:order-7' },
      ], NOW);
      return { written, locked: await locking };
    });
    const carried = written.map(({ row }) => namedRunOf(namedRunColumns(row, locked.get(row.taskId)!.dispatch)));
    const read = await readNamedRuns(db.dataSource.manager, { ids: written.map((w) => w.row.id), tenantId: 'acme', engineGroup: 'default', dueBefore: NOW });
    expect(carried).toEqual(written.map(({ row }) => read.find((r) => r.run.id === row.id)));
    // The fields that tell the rich task from the plain one came through (not a pair of empty rows).
    expect(carried[1].task).toMatchObject({ timeoutMs: 12_345, hasChildren: true, fixedDelay: true, concurrency: { key: 'customerId', limit: 1 }, alarmTypes: ['FAILED', 'TIMEOUT'], alarmSilenceMs: 30_000 });
    expect(carried[0].run).toMatchObject({ params: { k: 'x', n: [1, 2] }, flowParams: '{"f":true}', cause: 'MANUAL' });
  });
});
