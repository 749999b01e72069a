/**
 * XXL-JOB executors unchanged (issue 41 item 3): an executor speaking XXL-JOB's protocol
 * (xxl-job-test-executor.ts, as xxl-job-core does) points its admin address and access token at
 * a tenant's XXL-JOB admin API on a real engine, and runs that tenant's tasks — a real engine and
 * console in this process on MariaDB (no broker: alarms are read from their table).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlarmEntity, ExecutorEntity, RunEntity, RunLogEntity } from '@baton/persistence';
import { createAndTrigger, runRow, seedAlarmTenant, startConsoleNode, startEngineNode, uniqueTenantId, uniqueTopicPrefix, waitFor, type ConsoleNode, type EngineNode } from '../alarms/support/alarm-stack';
import type { SeededTenant } from '../console/console-test-kit';
import { useTestDatabase } from '../support/databases';
import { XxlTestExecutor } from './xxl-job-test-executor';

const DEAD_AFTER_MS = 1_500;

// The tests are one executor's life in steps (token, registration, runs, beats, timeout, busy-over,
// removal): they run in this order even when the suite is shuffled.
describe('XXL-JOB executors on Baton (engine + console + MariaDB)', { shuffle: false }, () => {
  const db = useTestDatabase('mysql');
  let engine: EngineNode;
  let consoleNode: ConsoleNode;
  let alpha: SeededTenant;
  let bravo: SeededTenant;
  let alphaToken: string;
  let bravoToken: string;
  let executor: XxlTestExecutor;
  const stops: Array<() => Promise<unknown>> = [];

  const adminOf = (tenantId: string) => `${engine.url}/xxl-job-admin/${tenantId}`;
  const executorsOf = (tenantId: string) => db.dataSource.getRepository(ExecutorEntity).find({ where: { tenantId }, order: { id: 'ASC' } });
  const ended = (runId: number) => waitFor(async () => {
    const run = await runRow(db.dataSource, runId);
    return ['SUCCEEDED', 'FAILED', 'TIMED_OUT'].includes(run.state) ? run : undefined;
  }, 20_000, `run ${runId} ended`);

  beforeAll(async () => {
    // A short dead-after (beats every 500 ms) shows the beats keeping an executor that registers every 30 s UP;
    // FAILOVER routing tries the executors in registration order, so busy-over is seen passing the first one by.
    engine = await startEngineNode(db.url, '', uniqueTopicPrefix(), { brokerUrl: null, executorDeadAfterMs: DEAD_AFTER_MS, routing: 'FAILOVER' });
    stops.push(() => engine.close());
    consoleNode = await startConsoleNode(db.url, null, uniqueTopicPrefix());
    stops.push(() => consoleNode.close());
    alpha = await seedAlarmTenant(consoleNode, db.dataSource, uniqueTenantId('alpha'));
    bravo = await seedAlarmTenant(consoleNode, db.dataSource, uniqueTenantId('bravo'));
    const set = await consoleNode.t.http().post('/api/executors/xxl-job-token').set(alpha.admin).send({ token: 'alpha-token-0123456789' });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toEqual({ tenantId: alpha.id, accessToken: 'alpha-token-0123456789', adminPath: `/xxl-job-admin/${alpha.id}` });
    alphaToken = set.body.accessToken;
    const made = await consoleNode.t.http().post('/api/executors/xxl-job-token').set(bravo.admin).send({});
    expect(made.body.accessToken).toMatch(/^[0-9a-f]{64}$/);
    bravoToken = made.body.accessToken;
  });

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  });

  it('the console refuses a malformed token naming the field, and a viewer may not set one', async () => {
    const bad = await consoleNode.t.http().post('/api/executors/xxl-job-token').set(alpha.admin).send({ token: 'short' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['token']);
    expect((await consoleNode.t.http().post('/api/executors/xxl-job-token').set(alpha.viewer).send({})).status).toBe(403);
  });

  it('a wrong token is refused with ReturnT code 500, and tenant B’s token cannot register into tenant A', async () => {
    const wrong = new XxlTestExecutor({ adminAddresses: adminOf(alpha.id), accessToken: 'not-the-token-at-all', appname: 'xxl-demo' });
    stops.push(() => wrong.stop());
    expect(await wrong.start()).toEqual({ code: 500, msg: 'The access token is wrong.', content: null });
    const crossing = new XxlTestExecutor({ adminAddresses: adminOf(alpha.id), accessToken: bravoToken, appname: 'xxl-demo' });
    stops.push(() => crossing.stop());
    expect((await crossing.start())?.code).toBe(500);
    expect(await executorsOf(alpha.id)).toEqual([]);
    expect(await executorsOf(bravo.id)).toEqual([]);
  });

  it('registers with its token: an UP executor of its appname, spoken to in XXL-JOB’s protocol', async () => {
    executor = new XxlTestExecutor({ adminAddresses: adminOf(alpha.id), accessToken: alphaToken, appname: 'xxl-demo' });
    stops.push(() => executor.stop());
    expect(await executor.start()).toMatchObject({ code: 200 });
    expect(await executorsOf(alpha.id)).toEqual([expect.objectContaining({ app: 'xxl-demo', url: executor.address, state: 'UP', wire: 'xxl-job' })]);
    const listed = await consoleNode.t.http().get('/api/executors').set(alpha.viewer);
    expect(listed.body).toEqual([expect.objectContaining({ app: 'xxl-demo', state: 'UP', wire: 'xxl-job' })]);
    expect((await consoleNode.t.http().get('/api/executors').set(bravo.viewer)).body).toEqual([]);
  });

  it('runs a task: `run` with handler, params, block strategy, timeout and logId; the callback ends the run; the log reaches the run', async () => {
    const { taskId, runId } = await createAndTrigger(consoleNode, alpha.admin, { name: 'xxl-echo', executorApp: 'xxl-demo', handler: 'echo', params: 'day=2026-12-01', timeoutMs: 30_000 });
    const run = await ended(runId);
    expect(run).toMatchObject({ state: 'SUCCEEDED', attempt: 1, result: 'day=2026-12-01 0/1' });
    // XXL-JOB reports no start: the trigger's sending stands for it.
    expect(run.startedAt).toBeGreaterThanOrEqual(run.scheduledAt);
    expect(run.startedAt).toBeLessThanOrEqual(run.finishedAt!);
    const sent = executor.received.find((r) => r.path === '/run' && (r.body as { logId: number }).logId === runId * 1000 + 1);
    expect(sent).toMatchObject({
      token: alphaToken,
      body: { jobId: taskId, executorHandler: 'echo', executorParams: 'day=2026-12-01', executorBlockStrategy: 'SERIAL_EXECUTION', glueType: 'BEAN', broadcastIndex: 0, broadcastTotal: 1, logDateTime: run.scheduledAt },
    });
    expect((sent!.body as { executorTimeout: number }).executorTimeout).toBeGreaterThanOrEqual(30);
    const lines = (await db.dataSource.getRepository(RunLogEntity).findBy({ runId })).map((l) => l.message);
    expect(lines.some((l) => l.endsWith('params day=2026-12-01'))).toBe(true);
    expect(lines.some((l) => l.includes('job execute end(finish)'))).toBe(true);
  });

  it('a SHARDED task: each shard is a trigger with its broadcast index and total', async () => {
    const { runId } = await createAndTrigger(consoleNode, alpha.admin, { name: 'xxl-shards', executorApp: 'xxl-demo', handler: 'echo', params: 'part', fanOut: { mode: 'SHARDED', shards: 3 } });
    expect(await ended(runId)).toMatchObject({ state: 'SUCCEEDED', shardTotal: 3 });
    const shards = await db.dataSource.getRepository(RunEntity).find({ where: { parentRunId: runId }, order: { shardIndex: 'ASC' } });
    expect(shards.map((r) => [r.shardIndex, r.state, r.result])).toEqual([0, 1, 2].map((i) => [i, 'SUCCEEDED', `part ${i}/3`]));
  });

  it('a cron task fires on its instants (never before) and runs there', async () => {
    const created = await consoleNode.t.http().post('/api/tasks').set(alpha.admin).send({ name: 'xxl-cron', executorApp: 'xxl-demo', handler: 'ok', trigger: { kind: 'CRON', expression: '* * * * * *', timeZone: 'UTC' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const run = await waitFor(() => db.dataSource.getRepository(RunEntity).findOne({ where: { taskId: created.body.id, state: 'SUCCEEDED' } }).then((r) => r ?? undefined), 20_000, 'a cron run succeeded');
    expect(run.scheduledAt % 1000).toBe(0);
    expect(run.dispatchedAt).toBeGreaterThanOrEqual(run.scheduledAt);
    expect((await consoleNode.t.http().delete(`/api/tasks/${created.body.id}`).set(alpha.admin)).status).toBeLessThan(300);
  });

  it('engines beat it: UP past the dead-after time although it registers only every 30 s', async () => {
    const [registered] = await executorsOf(alpha.id);
    await waitFor(async () => {
      const [row] = await executorsOf(alpha.id);
      return row.heartbeatAt - registered.registeredAt > 2 * DEAD_AFTER_MS ? row : undefined;
    }, 10_000, 'heartbeats refreshed by beats');
    expect(executor.received.filter((r) => r.path === '/beat').every((r) => r.token === alphaToken)).toBe(true);
    expect(await executorsOf(alpha.id)).toEqual([expect.objectContaining({ state: 'UP' })]);
    expect(await db.dataSource.getRepository(AlarmEntity).findBy({ tenantId: alpha.id, type: 'EXECUTOR_DOWN' })).toEqual([]);
  });

  it('a failing handler: retried by the task’s policy as a new attempt (a new logId), then FAILED with its handleMsg', async () => {
    const { runId } = await createAndTrigger(consoleNode, alpha.admin, { name: 'xxl-fail', executorApp: 'xxl-demo', handler: 'fail', retry: { maxAttempts: 2, backoffBaseMs: 10, jitter: 0 } });
    expect(await ended(runId)).toMatchObject({ state: 'FAILED', attempt: 2, error: expect.stringMatching(/^planned failure/) });
    const logIds = executor.received.filter((r) => r.path === '/run' && Math.floor((r.body as { logId: number }).logId / 1000) === runId).map((r) => (r.body as { logId: number }).logId);
    expect(logIds).toEqual([runId * 1000 + 1, runId * 1000 + 2]); // each attempt sent once
  });

  it('a run past its timeout is TIMED_OUT with a TIMEOUT alarm, and its job is killed on the executor', async () => {
    const { taskId, runId } = await createAndTrigger(consoleNode, alpha.admin, { name: 'xxl-sleep', executorApp: 'xxl-demo', handler: 'sleep', params: '60000', timeoutMs: 1500, retry: { maxAttempts: 1 } });
    const run: RunEntity = await ended(runId);
    expect(run.state).toBe('TIMED_OUT');
    await waitFor(() => executor.received.some((r) => r.path === '/kill' && (r.body as { jobId: number }).jobId === taskId && r.token === alphaToken), 10_000, 'kill of the job');
    // The killed trigger's own callback (500, killed) finds the attempt over: nothing changes.
    await waitFor(() => executor.adminCalls.some((c) => c.uri === 'callback' && (c.body as Array<{ logId: number }>)[0].logId === runId * 1000 + 1 && c.answer?.code === 200), 10_000, 'the killed trigger called back');
    expect(await runRow(db.dataSource, runId)).toMatchObject({ state: 'TIMED_OUT' });
    expect(await db.dataSource.getRepository(AlarmEntity).findBy({ tenantId: alpha.id, runId, type: 'TIMEOUT' })).toHaveLength(1);
  });

  it('a callback with B’s token into A is refused and changes nothing', async () => {
    const res = await fetch(`${adminOf(alpha.id)}/api/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'XXL-JOB-ACCESS-TOKEN': bravoToken },
      body: JSON.stringify([{ logId: 999_001, logDateTim: 0, handleCode: 200, handleMsg: 'forged' }]),
    });
    expect(await res.json()).toEqual({ code: 500, msg: 'The access token is wrong.', content: null });
  });

  it('busy-over: a job busy on the first executor goes to the next (idleBeat); a cancel kills it where it runs', async () => {
    const second = new XxlTestExecutor({ adminAddresses: adminOf(alpha.id), accessToken: alphaToken, appname: 'xxl-demo' });
    stops.push(() => second.stop());
    expect(await second.start()).toMatchObject({ code: 200 });
    const ids = new Map((await executorsOf(alpha.id)).map((e) => [e.url, e.id]));
    const created = await consoleNode.t.http().post('/api/tasks').set(alpha.admin).send({ name: 'xxl-busy', executorApp: 'xxl-demo', handler: 'sleep', params: '60000', trigger: { kind: 'MANUAL' }, timeoutMs: 60_000 });
    const taskId = created.body.id as number;
    const trigger = async () => (await consoleNode.t.http().post(`/api/tasks/${taskId}/trigger`).set(alpha.admin).send({})).body.id as number;
    const accepted = (runId: number) => waitFor(async () => {
      const run = await runRow(db.dataSource, runId);
      return run.state === 'ACCEPTED' ? run : undefined;
    }, 10_000, `run ${runId} accepted`);
    // The second executor is in the engine's routing table once a run can be refused by the first and land there.
    await waitFor(() => executor.received.some((r) => r.path === '/beat') && second.received.some((r) => r.path === '/beat'), 10_000, 'both executors beaten');
    const first = await accepted(await trigger());
    expect(first.executorId).toBe(ids.get(executor.address));
    const next = await accepted(await trigger());
    expect(next.executorId).toBe(ids.get(second.address));
    expect(executor.received.filter((r) => r.path === '/idleBeat').map((r) => r.body)).toContainEqual({ jobId: taskId });
    for (const run of [first, next]) expect((await consoleNode.t.http().post(`/api/runs/${run.id}/cancel`).set(alpha.admin).send({})).status).toBeLessThan(300);
    for (const e of [executor, second]) await waitFor(() => e.received.some((r) => r.path === '/kill' && (r.body as { jobId: number }).jobId === taskId), 10_000, 'kill on cancel');
    await second.stop();
  });

  it('stopping removes it: registryRemove takes it DOWN without an EXECUTOR_DOWN alarm', async () => {
    await executor.stop();
    expect(executor.adminCalls.at(-1)).toMatchObject({ uri: 'registryRemove', answer: { code: 200 } });
    expect(await executorsOf(alpha.id)).toEqual([
      expect.objectContaining({ url: executor.address, state: 'DOWN', stoppedAt: expect.any(Number) }),
      expect.objectContaining({ state: 'DOWN', stoppedAt: expect.any(Number) }),
    ]);
    expect(await db.dataSource.getRepository(AlarmEntity).findBy({ tenantId: alpha.id, type: 'EXECUTOR_DOWN' })).toEqual([]);
  });
});
