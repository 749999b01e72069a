/**
 * The console's happy paths, end to end over HTTP: an operator sets up a tenant and its admin;
 * the admin logs in, creates a cron task (nextFireAt computed), triggers it, pages through runs
 * with the cursor, reads stats, pauses/resumes a group, acks an alarm, manages API keys.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhook } from '@baton/messaging';
import { firstFireTime } from '@baton/domain';
import { ExecutorEntity, inTransaction, registerEngineNode, RunEntity } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import {
  cronTask,
  insertAlarm,
  insertExecutor,
  insertRun,
  insertRunLog,
  login,
  seedOperator,
  startConsole,
  T0,
  type ConsoleTestApp,
  type Credentials,
} from './console-test-kit';

// One scenario told in steps (log in, create, edit, trigger, page, cancel…), each building on the one before:
// its order is the test, so a shuffled run (--sequence.shuffle) keeps it; the files around it still move.
for (const kind of TEST_DATABASES) describe(`console happy paths on ${kind}`, { shuffle: false }, () => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let operator: Credentials;
  let admin: Credentials;
  let taskId: number;

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    operator = await seedOperator(t, db.dataSource, 'root');
  });
  afterAll(() => t?.close());

  it('lets the operator set up an engine group, a tenant and its admin', async () => {
    const group = await t.http().post('/api/operator/engine-groups').set(operator).send({ name: 'eu-1', description: 'Frankfurt' });
    expect(group.status).toBe(201);
    const tenant = await t.http().post('/api/operator/tenants').set(operator).send({ id: 'acme', name: 'Acme', engineGroup: 'eu-1' });
    expect(tenant.status).toBe(201);
    expect(tenant.body).toMatchObject({ id: 'acme', engineGroup: 'eu-1', ratePerSec: 1000, burst: 2000 });
    expect(tenant.body.executorSecret).toMatch(/^[0-9a-f]{64}$/);
    const list = await t.http().get('/api/operator/tenants').set(operator);
    expect(list.body.map((x: { id: string }) => x.id)).toEqual(['acme']);
    expect(list.body[0].executorSecret).toBeUndefined();
    const user = await t
      .http()
      .post('/api/operator/users')
      .set(operator)
      .send({ username: 'alice', password: 'correct-horse', role: 'TENANT_ADMIN', tenantId: 'acme' });
    expect(user.status).toBe(201);
    expect(user.body).toMatchObject({ username: 'alice', role: 'TENANT_ADMIN', tenantId: 'acme' });
    expect(user.body.passwordHash).toBeUndefined();
    const groups = await t.http().get('/api/operator/engine-groups/eu-1').set(operator);
    expect(groups.body.tenants).toEqual(['acme']);
  });

  it('logs in, tells who is logged in, and logs out', async () => {
    const res = await t.http().post('/api/auth/login').send({ tenant: 'acme', username: 'alice', password: 'correct-horse' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ user: { username: 'alice', role: 'TENANT_ADMIN', tenantId: 'acme' } });
    expect(res.body.expiresAt).toBe(T0 + 12 * 3600_000);
    admin = { Authorization: `Bearer ${res.body.token}` };
    expect((await t.http().get('/api/auth/me').set(admin)).body).toMatchObject({ username: 'alice', tenantId: 'acme' });

    const other = await login(t, 'acme/alice', 'correct-horse');
    expect((await t.http().post('/api/auth/logout').set(other)).status).toBe(204);
    expect((await t.http().get('/api/auth/me').set(other)).status).toBe(401);
    expect((await t.http().get('/api/auth/me').set(admin)).status).toBe(200);
  });

  it('expires sessions', async () => {
    const short = await login(t, 'acme/alice', 'correct-horse');
    t.clock.advance(12 * 3600_000 + 1);
    try {
      expect((await t.http().get('/api/auth/me').set(short)).status).toBe(401);
    } finally {
      t.clock.set(T0);
    }
  });

  it('creates a cron task with its next fire time computed', async () => {
    const res = await t
      .http()
      .post('/api/tasks')
      .set(admin)
      .send(cronTask('nightly', { group: 'reports', trigger: { kind: 'CRON', expression: ' 0 30 2 * * * ', timeZone: 'europe/berlin' }, retry: { maxAttempts: 3 } }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    taskId = res.body.id;
    // 02:30 Berlin (UTC+1 in March before DST) = 01:30 UTC.
    expect(res.body.nextFireAt).toBe(Date.UTC(2026, 2, 1, 1, 30));
    expect(res.body.nextFireAt).toBe(
      firstFireTime(
        { trigger: { kind: 'CRON', expression: '0 30 2 * * *', timeZone: 'Europe/Berlin' }, startAt: null, endAt: null, maxFires: null, fireCount: 0, calendar: null },
        T0,
      ),
    );
    expect(res.body).toMatchObject({
      name: 'nightly',
      group: 'reports',
      trigger: { kind: 'CRON', expression: '0 30 2 * * *', timeZone: 'Europe/Berlin' },
      retry: { maxAttempts: 3, backoffBaseMs: 1000, backoffMaxMs: 60000, jitter: 0.2 },
      misfirePolicy: 'FIRE_ONCE_NOW',
      paused: false,
      fireCount: 0,
      version: 1,
      params: { region: 'eu' },
    });
    // No executor of app billing is up: saved, with a warning; GET shows the task without it.
    const { warnings, ...task } = res.body;
    expect(warnings).toEqual([{ field: 'executorApp', reason: expect.stringContaining('no executor of app "billing" is up') }]);
    const got = await t.http().get(`/api/tasks/${taskId}`).set(admin);
    expect(got.body).toEqual(task);
  });

  it('edits a task: PATCH recomputes the next fire time, keeps the rest; the version moves', async () => {
    const res = await t
      .http()
      .patch(`/api/tasks/${taskId}`)
      .set(admin)
      .send({ trigger: { kind: 'FIXED_RATE', intervalMs: 60_000 }, retry: { backoffBaseMs: 2000 }, version: 1 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ trigger: { kind: 'FIXED_RATE', intervalMs: 60_000 }, nextFireAt: T0, version: 2, group: 'reports' });
    expect(res.body.retry).toEqual({ maxAttempts: 3, backoffBaseMs: 2000, backoffMaxMs: 60000, jitter: 0.2 });
    const back = await t
      .http()
      .put(`/api/tasks/${taskId}`)
      .set(admin)
      .send(cronTask('nightly', { group: 'reports', trigger: { kind: 'CRON', expression: '0 30 2 * * *', timeZone: 'Europe/Berlin' } }));
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ version: 3, nextFireAt: Date.UTC(2026, 2, 1, 1, 30), retry: { maxAttempts: 1 } });
  });

  it("keeps a cron task's daylight-saving policies, leaves the defaults out, and previews what they do", async () => {
    const trigger = { kind: 'CRON', expression: '0 30 1 * * *', timeZone: 'Europe/London', repeatedTime: 'TWICE', skippedTime: 'FIRE_LATE' };
    const res = await t.http().post('/api/tasks').set(admin).send(cronTask('london-dst', { trigger }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await t.http().get(`/api/tasks/${res.body.id}`).set(admin)).body.trigger).toEqual(trigger);
    const back = await t.http().patch(`/api/tasks/${res.body.id}`).set(admin).send({ trigger: { ...trigger, repeatedTime: 'ONCE_LATER', skippedTime: 'SKIP' } });
    expect(back.body.trigger).toEqual({ kind: 'CRON', expression: '0 30 1 * * *', timeZone: 'Europe/London' });
    // London skips 01:00-01:59 on 29 March 2026: FIRE_LATE fires 01:30 at 02:00 BST, SKIP goes on the next day.
    const late = await t.http().post('/api/cron/preview').set(admin).send({ expression: '0 30 1 * * *', timeZone: 'Europe/London', skippedTime: 'FIRE_LATE', after: Date.UTC(2026, 2, 28, 12), count: 2 });
    expect(late.body).toMatchObject({ nextIso: ['2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z'], dst: ['FIRED_LATE', null] });
    const skip = await t.http().post('/api/cron/preview').set(admin).send({ expression: '0 30 1 * * *', timeZone: 'Europe/London', after: Date.UTC(2026, 2, 28, 12), count: 1 });
    expect(skip.body).toMatchObject({ nextIso: ['2026-03-30T00:30:00.000Z'], dst: ['AFTER_SKIPPED'] });
    const doc = await t.http().get('/api/docs-json');
    expect(doc.body.components.schemas.TriggerDoc.properties.repeatedTime.enum).toEqual(['ONCE_LATER', 'ONCE_EARLIER', 'TWICE']);
    expect(doc.body.components.schemas.TriggerDoc.properties.skippedTime.enum).toEqual(['SKIP', 'FIRE_LATE']);
    expect((await t.http().delete(`/api/tasks/${res.body.id}`).set(admin)).status).toBe(204); // the listing test counts the tasks
  });

  it('lists tasks with search, filters and a cursor', async () => {
    for (const name of ['report-a', 'report-b', 'cleanup']) {
      const res = await t.http().post('/api/tasks').set(admin).send(cronTask(name, { group: name.startsWith('report') ? 'reports' : 'ops' }));
      expect(res.status).toBe(201);
    }
    const search = await t.http().get('/api/tasks?search=report').set(admin);
    expect(search.body.items.map((x: { name: string }) => x.name)).toEqual(['report-a', 'report-b']);
    const byGroup = await t.http().get('/api/tasks?group=reports').set(admin);
    expect(byGroup.body.items.map((x: { name: string }) => x.name)).toEqual(['nightly', 'report-a', 'report-b']);
    const names: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { status: number; body: { items: Array<{ name: string }>; nextCursor: string | null } } = await t.http().get(`/api/tasks?limit=2${cursor ? `&cursor=${cursor}` : ''}`).set(admin);
      expect(res.status).toBe(200);
      names.push(...res.body.items.map((x: { name: string }) => x.name));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(names).toEqual(['cleanup', 'nightly', 'report-a', 'report-b']);
  });

  it('triggers a run by hand: PENDING, MANUAL, due now, with a params snapshot or override', async () => {
    t.clock.set(T0 + 5_000);
    const res = await t.http().post(`/api/tasks/${taskId}/trigger`).set(admin).send({});
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ taskId, taskName: 'nightly', state: 'PENDING', cause: 'MANUAL', scheduledAt: T0 + 5_000, dueAt: T0 + 5_000, params: { region: 'eu' }, attempt: 1, logs: [] });
    expect(res.body.flowId).toBe(res.body.id);
    // Answered from the row as written, not read back: the same as reading it (no engine here, it stays PENDING).
    expect((await t.http().get(`/api/runs/${res.body.id}`).set(admin)).body).toEqual(res.body);
    const row = await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id: res.body.id });
    expect(row.fireKey).toMatch(/^m:[0-9a-f-]{36}$/);
    expect(row.engineGroup).toBe('eu-1');

    const override = await t.http().post(`/api/tasks/${taskId}/trigger`).set(admin).send({ params: { region: 'us', dryRun: true } });
    expect(override.body.params).toEqual({ region: 'us', dryRun: true });
    const bare = await t.http().post(`/api/tasks/${taskId}/trigger`).set(admin);
    expect(bare.status).toBe(201);
    t.clock.set(T0);
  });

  it('lists a flow by ?flowId=: its root (flow_id null in the table, flowId its own id in the API) and the runs it fired', async () => {
    const root = (await t.http().post(`/api/tasks/${taskId}/trigger`).set(admin).send({})).body as { id: number; flowId: number };
    expect(root.flowId).toBe(root.id);
    const child = await insertRun(db.dataSource, 'acme', taskId, { engineGroup: 'eu-1', cause: 'DEPENDENCY', flowId: root.id, parentRunId: root.id, fireKey: `f:${root.id}`, scheduledAt: T0 + 6_000 });
    const listed = await t.http().get(`/api/runs?flowId=${root.id}`).set(admin);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((r: { id: number; flowId: number }) => [r.id, r.flowId])).toEqual([
      [child.id, root.id],
      [root.id, root.id],
    ]);
    await db.dataSource.getRepository(RunEntity).delete([root.id, child.id]); // the paging test below counts the runs
  });

  it('pages through runs with the cursor (scheduled desc, id desc), with filters', async () => {
    // 3 manual runs exist (T0 + 5 s); add 9 scheduled ones, two sharing a scheduled time.
    for (let i = 1; i <= 9; i++) {
      await insertRun(db.dataSource, 'acme', taskId, {
        engineGroup: 'eu-1',
        scheduledAt: T0 - (i === 9 ? 8 : i) * 60_000,
        state: i % 3 === 0 ? 'FAILED' : 'SUCCEEDED',
      });
    }
    const all = await db.dataSource.getRepository(RunEntity).find({ where: { tenantId: 'acme' } });
    const expected = [...all].sort((x, y) => y.scheduledAt - x.scheduledAt || y.id - x.id).map((r) => r.id);
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { status: number; body: { items: Array<{ id: number }>; nextCursor: string | null } } = await t.http().get(`/api/runs?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`).set(admin);
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(5);
      seen.push(...res.body.items.map((r: { id: number }) => r.id));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(expected);

    // A filter is read as one query per (state, cause) pair, merged: the same order, page after page.
    const wanted = [...all].filter((r) => ['FAILED', 'SUCCEEDED'].includes(r.state) && r.cause === 'SCHEDULE').sort((x, y) => y.scheduledAt - x.scheduledAt || y.id - x.id).map((r) => r.id);
    expect(wanted.length).toBeGreaterThan(4);
    const filtered: number[] = [];
    for (let next: string | null = null, first = true; first || next; first = false) {
      const res: { body: { items: Array<{ id: number }>; nextCursor: string | null } } = await t.http().get(`/api/runs?state=FAILED,SUCCEEDED&cause=SCHEDULE&limit=2${next ? `&cursor=${encodeURIComponent(next)}` : ''}`).set(admin);
      filtered.push(...res.body.items.map((r) => r.id));
      next = res.body.nextCursor;
    }
    expect(filtered).toEqual(wanted);

    const failed = await t.http().get(`/api/runs?state=FAILED&taskId=${taskId}`).set(admin);
    expect(failed.body.items).toHaveLength(3);
    const two = await t.http().get('/api/runs?state=FAILED&state=PENDING').set(admin);
    expect(two.body.items).toHaveLength(6);
    const range = await t.http().get(`/api/runs?from=${T0 - 3 * 60_000}&to=${T0}`).set(admin);
    expect(range.body.items.map((r: { scheduledAt: number }) => r.scheduledAt)).toEqual([T0 - 60_000, T0 - 120_000, T0 - 180_000]);
  });

  it('shows a run with its logs and cancels an active run once', async () => {
    const run = await insertRun(db.dataSource, 'acme', taskId, { engineGroup: 'eu-1', state: 'ACCEPTED', scheduledAt: T0 - 30_000 });
    await insertRunLog(db.dataSource, run, 'step 1');
    await insertRunLog(db.dataSource, run, 'step 2');
    const detail = await t.http().get(`/api/runs/${run.id}`).set(admin);
    expect(detail.body.logs.map((l: { message: string }) => l.message)).toEqual(['step 1', 'step 2']);
    const cancelled = await t.http().post(`/api/runs/${run.id}/cancel`).set(admin);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ state: 'CANCELLED', finishedAt: T0 });
    expect((await t.http().post(`/api/runs/${run.id}/cancel`).set(admin)).status).toBe(409);
  });

  it("shows a failed run's first error line in lists and its stack apart in the detail", async () => {
    const run = await insertRun(db.dataSource, 'acme', taskId, { engineGroup: 'eu-1', state: 'FAILED', finishedAt: T0, error: 'Error: card declined\n    at charge (dist/billing.js:10:5)\n    at run (node_modules/@baton/executor-sdk/…)' });
    const detail = await t.http().get(`/api/runs/${run.id}`).set(admin);
    expect(detail.body).toMatchObject({ error: 'Error: card declined', errorDetail: '    at charge (dist/billing.js:10:5)\n    at run (node_modules/@baton/executor-sdk/…)' });
    const list = await t.http().get(`/api/runs?state=FAILED&taskId=${taskId}`).set(admin);
    expect(list.body.items.find((r: { id: number }) => r.id === run.id).error).toBe('Error: card declined');
  });

  it('computes stats: counts by state, duration and lateness percentiles over the window', async () => {
    const stats = await t.http().post('/api/tasks').set(admin).send(cronTask('measured'));
    const id = stats.body.id as number;
    for (let i = 0; i < 20; i++) {
      const scheduledAt = T0 - 3_600_000 + i * 60_000;
      await insertRun(db.dataSource, 'acme', id, {
        engineGroup: 'eu-1',
        scheduledAt,
        state: i < 18 ? 'SUCCEEDED' : 'FAILED',
        dispatchedAt: scheduledAt + (i + 1), // lateness 1..20 ms
        startedAt: scheduledAt + 100,
        finishedAt: scheduledAt + 100 + (i + 1) * 1000, // duration 1..20 s
      });
    }
    // A run on its third attempt: its 30 s of backoff is a retry wait, not lateness.
    await insertRun(db.dataSource, 'acme', id, { engineGroup: 'eu-1', scheduledAt: T0 - 600_000, dueAt: T0 - 570_000, attempt: 3, state: 'FAILED', dispatchedAt: T0 - 569_990, finishedAt: T0 - 569_000 });
    await insertRun(db.dataSource, 'acme', id, { engineGroup: 'eu-1', scheduledAt: T0 - 3 * 86_400_000, state: 'FAILED', finishedAt: T0 - 3 * 86_400_000 }); // outside the window
    await insertRun(db.dataSource, 'acme', id, { engineGroup: 'eu-1', scheduledAt: T0 - 1_000, state: 'PENDING' }); // going: counted as it is now
    const res = await t.http().get(`/api/tasks/${id}/stats?windowMs=7200000`).set(admin);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      taskId: id,
      windowMs: 7_200_000,
      from: Math.floor((T0 - 7_200_000) / 60_000) * 60_000,
      to: T0,
      total: 22,
      successRate: 18 / 21,
      percentileError: 0.25,
      sampled: false,
    });
    // Percentiles are histogram estimates: at or above the exact figure, at most 25 % (or 1 ms) more.
    const near = (estimate: number, exact: number) => {
      expect(estimate).toBeGreaterThanOrEqual(exact);
      expect(estimate).toBeLessThanOrEqual(Math.max(exact * 1.25, exact + 1));
    };
    expect(res.body.durationMs.count).toBe(20);
    near(res.body.durationMs.p50, 10_000);
    near(res.body.durationMs.p95, 19_000);
    expect(res.body.latenessMs.count).toBe(20);
    near(res.body.latenessMs.p50, 10);
    near(res.body.latenessMs.p95, 19);
    expect(res.body.retryWaitMs.count).toBe(1);
    near(res.body.retryWaitMs.p50, 30_000);
    expect(res.body.counts).toMatchObject({ SUCCEEDED: 18, FAILED: 3, PENDING: 1, CLAIMED: 0 });
    const tenant = await t.http().get('/api/stats').set(admin);
    expect(tenant.status).toBe(200);
    expect(tenant.body.total).toBeGreaterThan(20);
    expect(tenant.body.taskId).toBeNull();
  });

  it("sets the tenant's retention within the cluster's ceiling, and a task's override", async () => {
    const fresh = await t.http().get('/api/retention').set(admin);
    expect(fresh.body).toMatchObject({
      ceiling: { runsMs: 30 * 86_400_000, logsMs: 7 * 86_400_000, alarmsMs: 30 * 86_400_000, minRunsKept: 100 },
      tenant: { runsMs: null, logsMs: null, alarmsMs: null, minRunsKept: null },
      effective: { runsMs: 30 * 86_400_000, logsMs: 7 * 86_400_000, alarmsMs: 30 * 86_400_000, minRunsKept: 0 },
      tasks: [],
    });
    const set = await t.http().put('/api/retention').set(admin).send({ runsMs: 3 * 86_400_000, minRunsKept: 5 });
    expect(set.status).toBe(200);
    // Logs never outlive their runs.
    expect(set.body.effective).toEqual({ runsMs: 3 * 86_400_000, logsMs: 3 * 86_400_000, alarmsMs: 30 * 86_400_000, minRunsKept: 5 });
    const above = await t.http().put('/api/retention').set(admin).send({ runsMs: 31 * 86_400_000, alarmsMs: 10, minRunsKept: -1 });
    expect(above.status).toBe(400);
    expect(above.body.errors).toEqual([
      { field: 'runsMs', reason: "must be at most 2592000000, the cluster's ceiling" },
      { field: 'alarmsMs', reason: 'must be at least 60000 (1 minute)' },
      { field: 'minRunsKept', reason: "must be an integer from 0 to 100, the cluster's ceiling (BATON_MAX_RUNS_KEPT), or null" },
    ]);
    expect((await t.http().get('/api/retention').set(admin)).body.tenant.runsMs).toBe(3 * 86_400_000); // unchanged by the refused call
    const task = await t.http().put(`/api/retention/tasks/${taskId}`).set(admin).send({ runsMs: 20 * 86_400_000 });
    expect(task.body.tasks).toEqual([{ taskId, runsMs: 20 * 86_400_000, minRunsKept: null, effective: { runsMs: 20 * 86_400_000, logsMs: 3 * 86_400_000, alarmsMs: 30 * 86_400_000, minRunsKept: 5 } }]);
    expect((await t.http().put('/api/retention/tasks/999999').set(admin).send({ runsMs: 86_400_000 })).status).toBe(404);
    expect((await t.http().delete(`/api/retention/tasks/${taskId}`).set(admin)).status).toBe(204);
    expect((await t.http().get('/api/retention').set(admin)).body.tasks).toEqual([]);
    expect((await t.http().put('/api/retention').set(admin).send({ runsMs: null, minRunsKept: null })).body.tenant.runsMs).toBeNull();
  });

  it('keeps a task\'s pause-after-failures setting, and refuses one out of range naming the field', async () => {
    const created = await t.http().post('/api/tasks').set(admin).send({ ...cronTask('self-pausing'), pauseAfterFailures: 3 });
    expect(created.status).toBe(201);
    expect(created.body.pauseAfterFailures).toBe(3);
    const bad = await t.http().patch(`/api/tasks/${created.body.id}`).set(admin).send({ pauseAfterFailures: 0 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ field: 'pauseAfterFailures', reason: 'must be at least 1' }]);
    const off = await t.http().patch(`/api/tasks/${created.body.id}`).set(admin).send({ pauseAfterFailures: null });
    expect(off.body.pauseAfterFailures).toBeNull();
  });

  it("keeps a task's onStartLate (ALARM by default), changes it by PATCH, and refuses another value naming the field", async () => {
    const created = await t.http().post('/api/tasks').set(admin).send(cronTask('gives-up'));
    expect(created.status).toBe(201);
    expect(created.body.onStartLate).toBe('ALARM');
    const giveUp = await t.http().patch(`/api/tasks/${created.body.id}`).set(admin).send({ onStartLate: 'GIVE_UP' });
    expect(giveUp.status).toBe(200);
    expect((await t.http().get(`/api/tasks/${created.body.id}`).set(admin)).body.onStartLate).toBe('GIVE_UP');
    const bad = await t.http().patch(`/api/tasks/${created.body.id}`).set(admin).send({ onStartLate: 'SKIP' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ field: 'onStartLate', reason: 'must be one of ALARM, GIVE_UP' }]);
  });

  it('saves a task whose handler no live executor offers, and says so (field and the handlers offered)', async () => {
    const executor = await insertExecutor(db.dataSource, 'acme', 'payroll');
    await db.dataSource.getRepository(ExecutorEntity).update({ id: executor.id }, { handlers: ['pay', 'close-month'] });
    const base = { ...cronTask('payroll-run'), executorApp: 'payroll' };
    const typo = await t.http().post('/api/tasks').set(admin).send({ ...base, handler: 'pya' });
    expect(typo.status).toBe(201);
    expect(typo.body.warnings).toEqual([{ field: 'handler', reason: 'no live executor of app "payroll" offers handler "pya" (they offer: close-month, pay)' }]);
    const fixed = await t.http().patch(`/api/tasks/${typo.body.id}`).set(admin).send({ handler: 'pay' });
    expect(fixed.body.warnings).toEqual([]);
    const noApp = await t.http().patch(`/api/tasks/${typo.body.id}`).set(admin).send({ executorApp: 'payrol' });
    expect(noApp.body.warnings).toEqual([{ field: 'executorApp', reason: 'no executor of app "payrol" is up: its runs wait (START_LATE) until one is' }]);
    const listed = await t.http().get('/api/executors').set(admin);
    expect(listed.body.find((x: { id: number }) => x.id === executor.id).handlers).toEqual(['pay', 'close-month']);
  });

  it('backfills the past fires of a cron task, never one that already ran, and stops the backfill', async () => {
    const hourly = await t.http().post('/api/tasks').set(admin).send(cronTask('hourly-summary', { trigger: { kind: 'CRON', expression: '0 0 * * * *', timeZone: 'UTC' } }));
    const id = hourly.body.id as number;
    const from = Math.floor((T0 - 6 * 3_600_000) / 3_600_000) * 3_600_000;
    // The 3rd fire already has a (scheduled) run: it is not run again.
    await insertRun(db.dataSource, 'acme', id, { engineGroup: 'eu-1', state: 'SUCCEEDED', fireKey: `s:${from + 2 * 3_600_000}`, scheduledAt: from + 2 * 3_600_000, finishedAt: from + 2 * 3_600_000 + 10 });
    const res = await t.http().post(`/api/tasks/${id}/backfill`).set(admin).send({ from, to: from + 5 * 3_600_000, ratePerSec: 2 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ fires: 5, created: 4, alreadyRun: 1, notWritten: 0, firstDueAt: T0, lastDueAt: T0 + 2_000 });
    const runs = await db.dataSource.getRepository(RunEntity).find({ where: { taskId: id, cause: 'BACKFILL' }, order: { scheduledAt: 'ASC' } });
    expect(runs.map((r) => [r.scheduledAt - from, r.state, r.dueAt - T0, r.flowId, r.lateAlarmedAt])).toEqual([
      [0, 'PENDING', 0, null, T0], // each the root of its own flow
      [3_600_000, 'PENDING', 500, null, T0],
      [3 * 3_600_000, 'PENDING', 1_500, null, T0],
      [4 * 3_600_000, 'PENDING', 2_000, null, T0],
    ]);
    const again = await t.http().post(`/api/tasks/${id}/backfill`).set(admin).send({ from, to: from + 5 * 3_600_000 });
    expect(again.body).toMatchObject({ fires: 5, created: 0, alreadyRun: 5 });
    const listed = await t.http().get(`/api/runs?taskId=${id}&cause=BACKFILL`).set(admin);
    expect(listed.body.items).toHaveLength(4);
    const stopped = await t.http().delete(`/api/tasks/${id}/backfill`).set(admin);
    expect(stopped.body).toEqual({ cancelled: 4 });
    const bad = await t.http().post(`/api/tasks/${id}/backfill`).set(admin).send({ from: T0, to: T0 + 3_600_000 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ field: 'to', reason: expect.stringContaining('future') }]);
    const manual = await t.http().post('/api/tasks').set(admin).send({ ...cronTask('by-hand'), trigger: { kind: 'MANUAL' } });
    const refused = await t.http().post(`/api/tasks/${manual.body.id}/backfill`).set(admin).send({ from, to: T0, ratePerSec: 0 });
    expect(refused.body.errors).toEqual([{ field: 'ratePerSec', reason: 'must be an integer from 1 to 1000' }]);
  });

  it('starts a flow with params every run of it sees, and refuses flow params that are not JSON-safe', async () => {
    const res = await t.http().post(`/api/tasks/${taskId}/trigger`).set(admin).send({ flowParams: { day: '2026-11-24' } });
    expect(res.status).toBe(201);
    const [row] = (await db.dataSource.query('SELECT flow_params FROM runs WHERE id = ?', [res.body.id])) as Array<{ flow_params: string }>;
    expect(JSON.parse(row.flow_params)).toEqual({ day: '2026-11-24' });
    const deep = await t.http().post(`/api/tasks/${taskId}/trigger`).set(admin).send({ flowParams: 'x'.repeat(70_000) });
    expect(deep.status).toBe(400);
    expect(deep.body.errors[0].field).toMatch(/^flowParams/);
  });

  it('manages webhook channels: a signed test delivery, routing rules, refused URLs and names', async () => {
    const got: Array<{ headers: Record<string, string | string[] | undefined>; body: string }> = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => (got.push({ headers: req.headers, body }), res.writeHead(204).end()));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      // The receiver listens on loopback: the operator allows it for this tenant.
      expect((await t.http().patch('/api/operator/tenants/acme').set(operator).send({ executorNetworks: ['127.0.0.1'] })).status).toBe(200);
      const created = await t.http().post('/api/webhooks').set(admin).send({ name: 'ops', url, alarmTypes: ['FAILED', 'TIMEOUT'], minSeverity: 'CRITICAL' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: 'ops', url, alarmTypes: ['FAILED', 'TIMEOUT'], minSeverity: 'CRITICAL', pending: 0, failed: 0, secret: expect.stringMatching(/^whsec_/) });
      const tested = await t.http().post(`/api/webhooks/${created.body.id}/test`).set(admin);
      expect(tested.body).toMatchObject({ ok: true, status: 204, error: null });
      expect(got).toHaveLength(1);
      const ts = Number(got[0].headers['x-baton-timestamp']);
      expect(got[0].headers['x-baton-signature']).toBe(signWebhook(created.body.secret, ts, got[0].body));
      expect(JSON.parse(got[0].body)).toMatchObject({ tenantId: 'acme', type: 'BUSINESS', severity: 'INFO', data: { test: true } });
      const listed = await t.http().get('/api/webhooks').set(admin);
      expect(listed.body.map((w: { name: string; secret?: string }) => [w.name, w.secret])).toEqual([['ops', undefined]]);
      const refused = await t.http().post('/api/webhooks').set(admin).send({ name: 'ops', url: 'http://169.254.169.254/latest', alarmTypes: ['NOPE'], minSeverity: 'LOUD' });
      expect(refused.status).toBe(400);
      expect(refused.body.errors.map((e: { field: string }) => e.field)).toEqual(['url', 'alarmTypes', 'minSeverity']);
      expect((await t.http().post('/api/webhooks').set(admin).send({ name: 'ops', url })).status).toBe(409);
      expect((await t.http().delete(`/api/webhooks/${created.body.id}`).set(admin)).status).toBe(204);
      expect((await t.http().post(`/api/webhooks/${created.body.id}/test`).set(admin)).status).toBe(404);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('pauses and resumes a task group, and a single task', async () => {
    const paused = await t.http().post('/api/task-groups/reports/pause').set(admin);
    expect(paused.body).toEqual({ group: 'reports', paused: true, tasks: 3 });
    const list = await t.http().get('/api/tasks?paused=true').set(admin);
    expect(list.body.items.map((x: { name: string }) => x.name)).toEqual(['nightly', 'report-a', 'report-b']);
    // A name no task's group can have is refused, not paused for nothing (and audited).
    const refused = await t.http().post('/api/task-groups/%20bad/pause').set(admin).expect(400);
    expect(refused.body.errors).toEqual([{ field: 'group', reason: 'may contain only A-Z a-z 0-9 . _ -' }]);
    const resumed = await t.http().post('/api/task-groups/reports/resume').set(admin);
    expect(resumed.body.tasks).toBe(3);
    expect((await t.http().get('/api/tasks?paused=true').set(admin)).body.items).toEqual([]);

    const one = await t.http().post(`/api/tasks/${taskId}/pause`).set(admin);
    expect(one.body).toMatchObject({ paused: true });
    const before = one.body.nextFireAt;
    const back = await t.http().post(`/api/tasks/${taskId}/resume`).set(admin);
    expect(back.body).toMatchObject({ paused: false, nextFireAt: before });
  });

  it('lists alarms with filters and acknowledges one', async () => {
    const alarm = await insertAlarm(db.dataSource, 'acme', { taskId, type: 'START_LATE', severity: 'WARNING', raisedAt: T0 - 10 });
    await insertAlarm(db.dataSource, 'acme', { taskId, type: 'FAILED', raisedAt: T0 - 20 });
    const open = await t.http().get('/api/alarms?acked=false&type=START_LATE').set(admin);
    expect(open.body.items.map((a: { id: number }) => a.id)).toEqual([alarm.id]);
    const ack = await t.http().post(`/api/alarms/${alarm.id}/ack`).set(admin);
    expect(ack.status).toBe(200);
    expect(ack.body).toMatchObject({ ackedAt: T0, ackedBy: 'alice' });
    t.clock.advance(1000);
    const again = await t.http().post(`/api/alarms/${alarm.id}/ack`).set(admin);
    expect(again.body.ackedAt).toBe(T0);
    t.clock.set(T0);
    const acked = await t.http().get('/api/alarms?acked=true').set(admin);
    expect(acked.body.items.map((a: { id: number }) => a.id)).toEqual([alarm.id]);
    const page = await t.http().get('/api/alarms?limit=1').set(admin);
    expect(page.body.items).toHaveLength(1);
    expect(page.body.nextCursor).toEqual(expect.any(String));
  });

  it('manages dependencies and calendars', async () => {
    const names = await t.http().get('/api/tasks?search=report').set(admin);
    const [ra, rb] = names.body.items.map((x: { id: number }) => x.id);
    const edge = await t.http().post('/api/dependencies').set(admin).send({ parentTaskId: ra, childTaskId: rb, condition: 'ON_COMPLETION' });
    expect(edge.status).toBe(201);
    expect(edge.body).toMatchObject({ parentName: 'report-a', childName: 'report-b', condition: 'ON_COMPLETION' });
    const changed = await t.http().patch(`/api/dependencies/${edge.body.id}`).set(admin).send({ condition: 'ON_FAILURE' });
    expect(changed.body.condition).toBe('ON_FAILURE');
    expect((await t.http().get(`/api/dependencies?taskId=${rb}`).set(admin)).body).toHaveLength(1);

    // A task in an edge is not deleted by accident...
    const refused = await t.http().delete(`/api/tasks/${ra}`).set(admin);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'TASK_HAS_DEPENDENCIES', dependencyIds: [edge.body.id] });
    // ...but can be, with its edges; its active runs are cancelled, its history stays.
    const active = await insertRun(db.dataSource, 'acme', ra, { engineGroup: 'eu-1', state: 'PENDING' });
    expect((await t.http().delete(`/api/tasks/${ra}?cascade=true`).set(admin)).status).toBe(204);
    expect((await t.http().get(`/api/tasks/${ra}`).set(admin)).status).toBe(404);
    expect((await t.http().get('/api/dependencies').set(admin)).body).toEqual([]);
    const orphan = await t.http().get(`/api/runs/${active.id}`).set(admin);
    expect(orphan.body).toMatchObject({ state: 'CANCELLED', taskName: null });

    // Calendars: a task using one skips its dates; editing the calendar moves nextFireAt.
    const cal = await t.http().post('/api/calendars').set(admin).send({ name: 'holidays', timeZone: 'UTC', dates: ['2026-03-01'] });
    expect(cal.status).toBe(201);
    const daily = await t
      .http()
      .post('/api/tasks')
      .set(admin)
      .send(cronTask('daily', { trigger: { kind: 'CRON', expression: '0 0 12 * * *', timeZone: 'UTC' }, calendarName: 'holidays' }));
    expect(daily.body).toMatchObject({ calendarName: 'holidays', nextFireAt: Date.UTC(2026, 2, 2, 12) });
    const edited = await t.http().patch(`/api/calendars/${cal.body.id}`).set(admin).send({ dates: ['2026-03-02'] });
    expect(edited.body).toMatchObject({ dates: ['2026-03-02'], taskCount: 1 });
    expect((await t.http().get(`/api/tasks/${daily.body.id}`).set(admin)).body.nextFireAt).toBe(Date.UTC(2026, 2, 1, 12));
    expect((await t.http().delete(`/api/calendars/${cal.body.id}`).set(admin)).status).toBe(409);
  });

  it('creates, uses and revokes a tenant API key (clear key shown once)', async () => {
    const created = await t.http().post('/api/api-keys').set(admin).send({ name: 'ci', role: 'TENANT_ADMIN' });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^bk_/);
    expect(created.body.key.startsWith(created.body.prefix)).toBe(true);
    const key = { 'X-API-Key': created.body.key as string };
    const me = await t.http().get('/api/auth/me').set(key);
    expect(me.body).toMatchObject({ username: 'api-key:ci', role: 'TENANT_ADMIN', tenantId: 'acme', kind: 'apiKey' });
    const list = await t.http().get('/api/api-keys').set(admin);
    expect(list.body[0]).toMatchObject({ name: 'ci', prefix: created.body.prefix, revokedAt: null });
    expect(list.body[0].key).toBeUndefined();
    expect((await t.http().post('/api/tasks').set(key).send(cronTask('via-key'))).status).toBe(201);
    expect((await t.http().delete(`/api/api-keys/${created.body.id}`).set(admin)).status).toBe(204);
    expect((await t.http().get('/api/tasks').set(key)).status).toBe(401);
  });

  it('refuses to move a tenant to an engine group no live engine serves (409 naming engineGroup), unless told to', async () => {
    await t.http().post('/api/operator/engine-groups').set(operator).send({ name: 'eu-2' });
    const engine = (id: string, heartbeatAt: number) =>
      inTransaction(db.dataSource, (em) => registerEngineNode(em, { id, groups: ['eu-2', 'eu-3'], host: 'h', pid: 1, url: 'http://127.0.0.1:9', slots: 8, startedAt: heartbeatAt, heartbeatAt }));
    const move = (body: Record<string, unknown>) => t.http().patch('/api/operator/tenants/acme').set(operator).send({ engineGroup: 'eu-2', ...body });
    const group = async (name: string) => (await t.http().get(`/api/operator/engine-groups/${name}`).set(operator)).body as { tenants: string[]; liveEngines: number };
    const now = t.clock.now();
    try {
      // An engine silent for 10 s, and one that said it stopped, serve nothing.
      await engine('silent', now - 10_000);
      await engine('stopped', now);
      await db.dataSource.query(`UPDATE engine_nodes SET state = 'DOWN' WHERE id = 'stopped'`);
      const refused = await move({ ratePerSec: 50 });
      expect(refused.status).toBe(409);
      expect(refused.body.errors).toEqual([{ field: 'engineGroup', reason: expect.stringMatching(/^no live engine serves engine group "eu-2" .*allowUnserved: true/) }]);
      expect((await t.http().get('/api/operator/tenants/acme').set(operator)).body).toMatchObject({ engineGroup: 'eu-1', ratePerSec: 1000 }); // nothing of it stored
      expect(await group('eu-1')).toMatchObject({ tenants: ['acme'], liveEngines: 0 });

      // The operator says so: moved (a group an engine is about to serve), and told apart on the groups page.
      const forced = await move({ allowUnserved: true });
      expect(forced.status).toBe(200);
      expect(await group('eu-2')).toMatchObject({ tenants: ['acme'], liveEngines: 0 });
      expect((await t.http().patch('/api/operator/tenants/acme').set(operator).send({ engineGroup: 'eu-1', allowUnserved: true })).status).toBe(200);

      await engine('live', now - 9_999);
      expect(await group('eu-2')).toMatchObject({ tenants: [], liveEngines: 1 });
    } catch (err) {
      await db.dataSource.query('DELETE FROM engine_nodes');
      throw err;
    }
  });

  it('moves a tenant to another engine group a live engine serves, with its tasks and its runs not ended yet', async () => {
    const held = await insertRun(db.dataSource, 'acme', taskId, { engineGroup: 'eu-1', state: 'CLAIMED', claimedBy: 'live', leaseUntil: t.clock.now() + 15_000 });
    try {
      const res = await t.http().patch('/api/operator/tenants/acme').set(operator).send({ engineGroup: 'eu-2', ratePerSec: 50 });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ engineGroup: 'eu-2', ratePerSec: 50 });
      const pending = await db.dataSource.getRepository(RunEntity).find({ where: { tenantId: 'acme', state: 'PENDING' } });
      expect(pending.length).toBeGreaterThan(0);
      expect(new Set(pending.map((r) => r.engineGroup))).toEqual(new Set(['eu-2']));
      // The run an engine holds moves too, still its engine's: it finishes there, and a hand-back is the new group's to claim.
      expect(await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id: held.id })).toMatchObject({ state: 'CLAIMED', claimedBy: 'live', engineGroup: 'eu-2' });
      expect((await t.http().delete('/api/operator/engine-groups/eu-1').set(operator)).status).toBe(204);
    } finally {
      await db.dataSource.query(`UPDATE runs SET state = 'CANCELLED', finished_at = ?, claimed_by = NULL WHERE id = ?`, [t.clock.now(), held.id]);
      await db.dataSource.query('DELETE FROM engine_nodes');
    }
  });

  it("limits where a tenant's executors may live, and lifts the limit with null", async () => {
    const res = await t.http().patch('/api/operator/tenants/acme').set(operator).send({ executorNetworks: [' 10.0.0.0/8', '*.SVC.cluster.local', '10.0.0.0/8'] });
    expect(res.status).toBe(200);
    expect(res.body.executorNetworks).toEqual(['10.0.0.0/8', '*.svc.cluster.local']);
    expect((await t.http().get('/api/operator/tenants/acme').set(operator)).body.executorNetworks).toEqual(['10.0.0.0/8', '*.svc.cluster.local']);
    expect((await t.http().patch('/api/operator/tenants/acme').set(operator).send({ name: 'Acme Corp' })).body.executorNetworks).toEqual(['10.0.0.0/8', '*.svc.cluster.local']);
    expect((await t.http().patch('/api/operator/tenants/acme').set(operator).send({ executorNetworks: null })).body.executorNetworks).toBeNull();
  });

  it('serves health and the OpenAPI UI without credentials', async () => {
    // The test's ManualClock against the database's real one: an offset is measured, whatever it is.
    expect((await t.http().get('/api/health')).body).toEqual({ status: 'ok', db: 'up', time: T0, clockOffsetMs: expect.any(Number) });
    const ui = await t.http().get('/api/docs');
    expect(ui.status).toBe(200);
    expect(ui.text).toContain('swagger');
    const doc = await t.http().get('/api/docs-json');
    expect(doc.body.components.securitySchemes).toHaveProperty('session');
    expect(doc.body.components.securitySchemes).toHaveProperty('apiKey');
    // Errors: every operation documents the ErrorBody, the same shape as the engine's (libs/protocol/openapi.yaml).
    expect(doc.body.components.schemas.ErrorBodyView).toMatchObject({ required: ['statusCode', 'code', 'error', 'message'] });
    expect(doc.body.components.schemas.ErrorBodyView.properties.code.enum).toEqual(expect.arrayContaining(['VALIDATION_FAILED', 'NOT_FOUND', 'INTERNAL']));
    expect(doc.body.paths['/api/tasks'].post.responses.default.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorBodyView' });
    // Public routes take no credentials, and say so; the others take a session or an API key.
    expect([doc.body.paths['/api/health'].get.security, doc.body.paths['/api/auth/login'].post.security]).toEqual([[], []]);
    expect(doc.body.paths['/api/auth/me'].get.security).toEqual([{ session: [] }, { apiKey: [] }]);
    // What the validation refuses, the document says: 1.5 is no integer, a key is a JSON path, an approval step's fields have defaults.
    const schemas = doc.body.components.schemas;
    expect(schemas.KeyThrottleDoc.properties.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000 });
    expect(schemas.KeyDebounceDoc.properties.maxWaitMs).toMatchObject({ type: 'integer', minimum: 100 });
    expect(schemas.KeyConcurrencyDoc.properties.key).toMatchObject({ pattern: expect.any(String), maxLength: 200 });
    expect(schemas.ApprovalGateDoc.required).toBeUndefined();
    expect(schemas.EmitEventsDto.properties.idempotencyKey).toMatchObject({ pattern: '^[A-Za-z0-9._:~-]{1,62}$', maxLength: 62 });
    expect(schemas.SubmissionResultView.properties.status.enum).toContain(409);
    // A cycle a file's dependencies would close is documented where a file is planned and applied, as it is for one edge.
    for (const path of ['/api/dependencies', '/api/config/plan', '/api/config/apply']) expect(doc.body.paths[path].post.responses['409'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CycleErrorView' });
  });
});
