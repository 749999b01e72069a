/**
 * Backlog you can see (issue 20 item 4): GET /api/load shows a tenant its own load, GET
 * /api/operator/load every tenant's, the oldest due run first; counts per state are right and
 * stop at the cap.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LOAD_COUNT_CAP, type RunState } from '@baton/domain';
import { TaskEntity } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { cronTask, insertExecutor, insertRun, seedOperator, seedTenant, startConsole, T0, type ConsoleTestApp, type Credentials, type SeededTenant } from './console-test-kit';
import type { LoadBoard } from '../../apps/console/src/api-types';
import { openMetricsTenantLabels } from '../../apps/engine/src/metrics/metrics-tenant-labels';

describe.each(TEST_DATABASES)('tenant load on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let operator: Credentials;

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
  });
  afterAll(() => t?.close());
  beforeEach(async () => {
    t.clock.set(T0);
    await db.clear();
    a = await seedTenant(t, db.dataSource, 'tenant-a');
    b = await seedTenant(t, db.dataSource, 'tenant-b');
    operator = await seedOperator(t, db.dataSource);
  });

  async function task(tenant: SeededTenant): Promise<number> {
    const res = await t.http().post('/api/tasks').set(tenant.admin).send(cronTask(`job-${tenant.id}`));
    expect(res.status).toBe(201);
    return res.body.id as number;
  }

  async function runs(tenantId: string, taskId: number, state: RunState, n: number, dueAt: number): Promise<void> {
    for (let i = 0; i < n; i++) await insertRun(db.dataSource, tenantId, taskId, { state, scheduledAt: dueAt - i, dueAt: dueAt - i });
  }

  async function load(who: Credentials, url = '/api/load'): Promise<LoadBoard> {
    const res = await t.http().get(url).set(who);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as LoadBoard;
  }

  it('shows a tenant its own load only, every state counted where it belongs; the operator sees both, the oldest due first', async () => {
    const aTask = await task(a);
    const bTask = await task(b);
    await runs(a.id, aTask, 'PENDING', 4, T0 - 10_000); // due, the oldest 10.003 s ago
    await runs(a.id, aTask, 'RETRY_WAIT', 1, T0 - 2_000); // due
    await runs(a.id, aTask, 'PENDING', 2, T0 + 60_000); // planned ahead: not due
    await runs(a.id, aTask, 'CLAIMED', 3, T0);
    await runs(a.id, aTask, 'DISPATCHED', 1, T0);
    await runs(a.id, aTask, 'ACCEPTED', 2, T0);
    await runs(a.id, aTask, 'SUCCEEDED', 5, T0 - 60_000);
    await runs(b.id, bTask, 'PENDING', 2, T0 - 90_000);
    const executor = await insertExecutor(db.dataSource, a.id);
    // Sent ahead of their instant to its executor, which holds them till then: a place there, no load.
    for (const dueAt of [T0 + 5_000, T0 + 9_000]) await insertRun(db.dataSource, a.id, aTask, { state: 'ACCEPTED', scheduledAt: dueAt, dueAt, executorId: executor.id });
    // What the executor reported in flight counts them.
    await db.dataSource.query('UPDATE executors SET in_flight = 5 WHERE id = ?', [executor.id]);

    for (const who of [a.admin, a.viewer, a.viewerKey]) {
      const mine = await load(who);
      expect(mine).toMatchObject({ at: T0, countCap: LOAD_COUNT_CAP, tenants: 1 });
      expect(mine.items).toEqual([
        {
          tenantId: a.id,
          engineGroup: 'default',
          due: { count: 5, capped: false },
          held: { count: 3, capped: false },
          inFlight: { count: 3, capped: false },
          sentAhead: { count: 2, capped: false },
          executors: { up: 1, capacity: 8, inFlight: 5 },
          oldestDueAt: T0 - 10_003,
          oldestDueAgeMs: 10_003,
          backlogLateSince: null,
        },
      ]);
    }
    expect((await load(b.admin)).items).toMatchObject([{ tenantId: b.id, due: { count: 2 }, held: { count: 0 }, inFlight: { count: 0 }, sentAhead: { count: 0 }, executors: { up: 0, capacity: 0 }, oldestDueAgeMs: 90_001 }]);
    // The executor's own figures: what it reported, and the runs sent ahead to it that wait there.
    const executors = await t.http().get('/api/executors').set(a.viewer);
    expect(executors.body).toMatchObject([{ id: executor.id, capacity: 8, inFlight: 5, sentAhead: 2 }]);

    const all = await load(operator, '/api/operator/load');
    expect(all.tenants).toBe(2);
    expect(all.items.map((x) => [x.tenantId, x.due.count, x.held.count, x.inFlight.count])).toEqual([
      [b.id, 2, 0, 0], // waited 90 s
      [a.id, 5, 3, 3], // waited 10 s
    ]);
    expect((await load(operator, '/api/operator/load?limit=1')).items.map((x) => x.tenantId)).toEqual([b.id]);

    // Time passes: the age follows the clock, and the first run sent ahead has its instant: in flight.
    t.clock.advance(5_000);
    expect((await load(a.admin)).items[0]).toMatchObject({ oldestDueAgeMs: 15_003, inFlight: { count: 4 }, sentAhead: { count: 1 } });
    expect((await t.http().get(`/api/executors/${executor.id}`).set(a.viewer)).body).toMatchObject({ inFlight: 5, sentAhead: 1 });
  });

  it('stops counting at the cap and says so', async () => {
    const aTask = await db.dataSource.getRepository(TaskEntity).findOneByOrFail({ id: await task(a) });
    const values: string[] = [];
    for (let i = 0; i <= LOAD_COUNT_CAP; i++) values.push(`('${a.id}', ${aTask.id}, 'default', 'PENDING', 'BACKFILL', 'b:${i}', 1, 0, '{}', ${T0 - 1000 - i}, ${T0 - 1000 - i}, ${T0}, ${T0})`);
    for (let i = 0; i < values.length; i += 500) {
      await db.dataSource.query(
        `INSERT INTO runs (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at, created_at, updated_at) VALUES ${values.slice(i, i + 500).join(',')}`,
      );
    }
    const [mine] = (await load(a.admin)).items;
    expect(mine.due).toEqual({ count: LOAD_COUNT_CAP, capped: true });
    expect(mine.oldestDueAgeMs).toBe(1000 + LOAD_COUNT_CAP);
  });

  it('refuses a bad limit naming it, and keeps tenants and viewers off the operator board', async () => {
    const bad = await t.http().get('/api/operator/load?limit=0').set(operator);
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.[0]?.field).toBe('limit');
    expect((await t.http().get('/api/operator/load').set(a.admin)).status).toBe(403);
    expect((await t.http().get('/api/load').set(operator)).status).toBe(403);
  });

  it("sets a tenant's BACKLOG_LATE threshold (operator), and back to the engines' default with null", async () => {
    const set = await t.http().patch(`/api/operator/tenants/${a.id}`).set(operator).send({ backlogAlarmMs: 30_000 });
    expect(set.status).toBe(200);
    expect(set.body.backlogAlarmMs).toBe(30_000);
    const bad = await t.http().patch(`/api/operator/tenants/${a.id}`).set(operator).send({ backlogAlarmMs: -1 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.[0]?.field).toBe('backlogAlarmMs');
    expect((await t.http().patch(`/api/operator/tenants/${a.id}`).set(operator).send({ name: 'renamed' })).body.backlogAlarmMs).toBe(30_000);
    expect((await t.http().patch(`/api/operator/tenants/${a.id}`).set(operator).send({ backlogAlarmMs: null })).body.backlogAlarmMs).toBeNull();
  });
  it("gives the operator each tenant's metrics label, as every engine labels it on an open /metrics: keyed with the cluster's secret, not the id's plain hash; never to a tenant", async () => {
    const list = await t.http().get('/api/operator/tenants').set(operator);
    expect(list.status).toBe(200);
    const labels = Object.fromEntries((list.body as Array<{ id: string; metricsLabel: string }>).map((x) => [x.id, x.metricsLabel]));
    // An engine started now reads the secret the console made (or made it first): the same labels.
    const engine = await openMetricsTenantLabels(db.dataSource, { metricsToken: null }, t.clock);
    expect(labels).toEqual({ [a.id]: engine.label(a.id), [b.id]: engine.label(b.id) });
    expect(labels[a.id]).toMatch(/^t_[0-9a-f]{12}$/);
    expect(labels[a.id]).not.toBe(`t_${createHash('sha256').update(a.id).digest('hex').slice(0, 12)}`);
    expect((await t.http().get(`/api/operator/tenants/${a.id}`).set(operator)).body.metricsLabel).toBe(labels[a.id]);
    expect((await t.http().get('/api/operator/tenants').set(a.admin)).status).toBe(403);
    expect((await t.http().get(`/api/operator/tenants/${a.id}`).set(a.admin)).status).toBe(403);
  });
});
