/**
 * Tasks as code at 1,000 tasks: the time to apply a file of 1,000 tasks to an empty tenant
 * (creations), to apply it again with every task changed (updates), and to plan it. Figures
 * are logged (the machine is shared: the lead re-measures in a quiet window); what is asserted
 * is that it all landed, in one transaction, and that the file fits the API's body limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { seedTenant, startConsole, type ConsoleTestApp, type SeededTenant } from './console-test-kit';

const TASKS = 1000;

function fileOf(priority: number): string {
  const tasks = Array.from({ length: TASKS }, (_, i) => ({
    name: `task-${String(i).padStart(4, '0')}`,
    group: `group-${i % 10}`,
    executorApp: 'billing',
    handler: 'closeDay',
    params: { shard: i, region: i % 2 ? 'eu' : 'us' },
    trigger: i % 3 === 0 ? { kind: 'FIXED_RATE', intervalMs: 60_000 + i } : { kind: 'CRON', expression: `0 ${i % 60} ${i % 24} * * *`, timeZone: 'Europe/Berlin' },
    priority,
  }));
  const dependencies = Array.from({ length: TASKS / 10 }, (_, i) => ({ parent: `task-${String(i * 10).padStart(4, '0')}`, child: `task-${String(i * 10 + 1).padStart(4, '0')}` }));
  return stringify({ version: 1, tasks, dependencies });
}

describe.each(TEST_DATABASES)('tasks as code at 1,000 tasks on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let acme: SeededTenant;

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    acme = await seedTenant(t, db.dataSource, 'acme');
  });
  afterAll(() => t?.close());

  const timed = async (route: 'plan' | 'apply', file: string) => {
    const started = performance.now();
    const res = await t.http().post(`/api/config/${route}`).set(acme.adminKey).send({ file });
    const ms = Math.round(performance.now() - started);
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
    return { ms, changes: res.body.changes as Array<{ action: string }> };
  };

  it(`applies a file of ${TASKS} tasks (and 100 dependencies), then every task changed`, async () => {
    const first = fileOf(0);
    const plan = await timed('plan', first);
    const create = await timed('apply', first);
    expect(create.changes.filter((c) => c.action === 'create')).toHaveLength(TASKS + TASKS / 10);
    const update = await timed('apply', fileOf(5));
    expect(update.changes.filter((c) => c.action === 'update')).toHaveLength(TASKS);
    const noop = await timed('apply', fileOf(5));
    expect(noop.changes).toEqual([]);
    const [{ n }] = await db.dataSource.query("SELECT COUNT(*) AS n FROM tasks WHERE tenant_id = 'acme' AND managed_hash IS NOT NULL AND priority = 5");
    expect(Number(n)).toBe(TASKS);
    console.log(
      `[tasks as code] ${kind}: file ${Math.round(first.length / 1024)} KiB; plan ${plan.ms} ms; apply ${TASKS} creations ${create.ms} ms; ${TASKS} updates ${update.ms} ms; unchanged ${noop.ms} ms (shared machine: noisy)`,
    );
  }, 240_000);
});
