/** A tenant's home dashboard (issue 24): the last hour's runs, success rate, lateness p95, early starts, open alarms, executors up, backlog; an operator's per tenant. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketStart, MINUTE_MS } from '@baton/domain';
import { HistoryCursorEntity, RunRollupEntity } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { cronTask, insertAlarm, insertExecutor, insertRun, seedOperator, seedTenant, startConsole, T0, type ConsoleTestApp, type SeededTenant } from './console-test-kit';

describe.each(TEST_DATABASES)('the dashboard through the console API on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let acme: SeededTenant;
  let globex: SeededTenant;
  let operator: Awaited<ReturnType<typeof seedOperator>>;

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    acme = await seedTenant(t, db.dataSource, 'acme');
    globex = await seedTenant(t, db.dataSource, 'globex');
    const taskId = (await t.http().post('/api/tasks').set(acme.admin).send(cronTask('nightly'))).body.id as number;
    const ended = (state: 'SUCCEEDED' | 'FAILED', late: number) => ({ state, scheduledAt: T0 - 600_000, dueAt: T0 - 600_000, dispatchedAt: T0 - 600_000 + late, startedAt: T0 - 599_000, finishedAt: T0 - 590_000 });
    await insertRun(db.dataSource, 'acme', taskId, ended('SUCCEEDED', 20));
    await insertRun(db.dataSource, 'acme', taskId, ended('SUCCEEDED', 30));
    await insertRun(db.dataSource, 'acme', taskId, ended('FAILED', 40));
    await insertRun(db.dataSource, 'acme', taskId, { state: 'SUCCEEDED', scheduledAt: T0 - 7_200_000, finishedAt: T0 - 7_100_000 }); // before the hour
    await insertRun(db.dataSource, 'acme', taskId, { state: 'PENDING', scheduledAt: T0 - 5_000, dueAt: T0 - 5_000 });
    await insertAlarm(db.dataSource, 'acme');
    await insertAlarm(db.dataSource, 'acme', { ackedAt: T0, ackedBy: 'admin' });
    await insertAlarm(db.dataSource, 'globex');
    await insertExecutor(db.dataSource, 'acme', 'billing');
    operator = await seedOperator(t, db.dataSource);
  });
  afterAll(() => t?.close());

  it('answers the tenant’s own figures of the last hour, and the operator’s per tenant', async () => {
    const res = await t.http().get('/api/dashboard').set(acme.viewer);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      tenantId: 'acme',
      windowMs: 3_600_000,
      runs: expect.objectContaining({ SUCCEEDED: 2, FAILED: 1, PENDING: 1 }),
      openAlarms: { count: 1, capped: false },
      executorsUp: 1,
      backlog: { due: { count: 1, capped: false }, held: { count: 0, capped: false }, inFlight: { count: 0, capped: false }, oldestDueAgeMs: 5_000 },
    });
    expect(res.body.successRate).toBeCloseTo(2 / 3);
    expect(res.body.latenessP95Ms).toBeGreaterThanOrEqual(40);
    const theirs = await t.http().get('/api/dashboard').set(globex.viewer);
    expect(theirs.body).toMatchObject({ tenantId: 'globex', openAlarms: { count: 1 }, executorsUp: 0, successRate: null, latenessP95Ms: null });
    const perTenant = await t.http().get('/api/operator/tenants/acme/dashboard').set(operator);
    expect(perTenant.status).toBe(200);
    expect(perTenant.body).toMatchObject({ tenantId: 'acme', openAlarms: { count: 1 }, executorsUp: 1 });
    expect((await t.http().get('/api/operator/tenants/nope/dashboard').set(operator)).status).toBe(404);
    expect((await t.http().get('/api/operator/tenants/acme/dashboard').set(globex.admin)).status).toBe(403);
  });

  it('counts runs started more than 20 ms before their instant, rolled up or not yet, in the stats, the series and the dashboard (issue 39)', async () => {
    const initech = await seedTenant(t, db.dataSource, 'initech');
    const taskId = (await t.http().post('/api/tasks').set(initech.admin).send(cronTask('daily-report'))).body.id as number;
    // Rolled up by an engine's history job (windows up to 6 h read its minutes): a minute 30 min ago holding one early start; rolled until 10 min ago.
    const rolledMinute = bucketStart(T0 - 30 * MINUTE_MS, MINUTE_MS);
    const rolled = { spanMs: MINUTE_MS, bucketStart: rolledMinute, succeeded: 3, failed: 0, timedOut: 0, cancelled: 0, skipped: 0, earlyStarts: 1, durationHist: '', latenessHist: '0:3', retryWaitHist: '' };
    await db.dataSource.getRepository(RunRollupEntity).insert([{ tenantId: 'initech', taskId, ...rolled }, { tenantId: 'initech', taskId: 0, ...rolled }]);
    await db.dataSource
      .getRepository(HistoryCursorEntity)
      .insert({ tenantId: 'initech', rolledUntil: T0 - 10 * MINUTE_MS, settledUntil: T0 - 10 * MINUTE_MS, logsPurgedUntil: 0, purgePosition: 0, worker: null, workerUntil: 0 });
    // Not rolled up yet: refused ahead of its instant, re-sent after the back-off (due_at) and started 9.1 s early;
    // one started 20 ms early (within the tolerance); one late.
    const instant = T0 - 5 * MINUTE_MS;
    const run = (startedAt: number, more: { dueAt?: number; instantAt?: number | null } = {}) =>
      insertRun(db.dataSource, 'initech', taskId, { state: 'SUCCEEDED', scheduledAt: instant, dueAt: more.dueAt ?? instant, instantAt: more.instantAt ?? null, dispatchedAt: instant, startedAt, finishedAt: instant + 1_000 });
    await run(instant - 9_100, { dueAt: instant - 9_100, instantAt: instant });
    await run(instant - 20);
    await run(instant + 3_000);

    const stats = await t.http().get(`/api/tasks/${taskId}/stats?windowMs=3600000`).set(initech.viewer);
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({ counts: expect.objectContaining({ SUCCEEDED: 6 }), earlyStarts: 2 });
    expect((await t.http().get('/api/stats?windowMs=3600000').set(initech.viewer)).body.earlyStarts).toBe(2);
    const series = await t.http().get('/api/ui/stats-series?windowMs=3600000&bucketMs=60000').set(initech.viewer);
    expect(series.status).toBe(200);
    const early = (series.body.buckets as Array<{ t: number; earlyStarts: number }>).filter((b) => b.earlyStarts > 0);
    expect(early).toEqual([
      { t: rolledMinute, earlyStarts: 1 },
      { t: bucketStart(instant + 1_000, MINUTE_MS), earlyStarts: 1 },
    ].map((b) => expect.objectContaining(b)));
    expect((await t.http().get('/api/dashboard').set(initech.viewer)).body.earlyStarts).toBe(2);
    // Another tenant's figures stay its own.
    expect((await t.http().get('/api/stats').set(globex.viewer)).body.earlyStarts).toBe(0);
  });

  it('gives the operator every tenant’s dashboard side by side, a page of tenants at a time; refuses a tenant admin, a forged cursor and a bad limit', async () => {
    const first = await t.http().get('/api/operator/dashboards?limit=1').set(operator);
    expect(first.status).toBe(200);
    expect(first.body.items.map((d: { tenantId: string }) => d.tenantId)).toEqual(['acme']);
    expect(first.body.items[0]).toMatchObject({ runs: expect.objectContaining({ SUCCEEDED: 2, FAILED: 1 }), openAlarms: { count: 1 }, executorsUp: 1, backlog: { due: { count: 1 } } });
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const rest = await t.http().get(`/api/operator/dashboards?limit=100&cursor=${first.body.nextCursor}`).set(operator);
    expect(rest.status).toBe(200);
    const ids = rest.body.items.map((d: { tenantId: string }) => d.tenantId);
    expect(ids[0]).toBe('globex');
    expect(ids).not.toContain('acme');
    expect(rest.body.nextCursor).toBeNull();
    expect(rest.body.items.find((d: { tenantId: string }) => d.tenantId === 'globex')).toMatchObject({ openAlarms: { count: 1 }, executorsUp: 0 });
    expect((await t.http().get('/api/operator/dashboards').set(acme.admin)).status).toBe(403);
    const forged = await t.http().get('/api/operator/dashboards?cursor=%%%').set(operator);
    expect(forged.status).toBe(400);
    expect(JSON.stringify(forged.body)).toContain('cursor');
    const tooMany = await t.http().get('/api/operator/dashboards?limit=101').set(operator);
    expect(tooMany.status).toBe(400);
    expect(JSON.stringify(tooMany.body)).toContain('limit');
  });
});
