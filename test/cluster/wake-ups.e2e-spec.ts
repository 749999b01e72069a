/**
 * Wake-ups instead of polls (issue 22 item 2): with the engines' claim poll set to 10 minutes, a
 * run due now still starts — a manual trigger through a console in another process than the
 * engines (POST /baton/wake), a flow's child (the engine that ended its parent claims it), a
 * retry due before the next poll. Each start is awaited for less than a poll period, so without
 * the wake-ups it would not come at all. How soon they start is a figure (printed; `npm run bench
 * -- run-now`), not asserted: a loaded machine stretches it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunEntity } from '@baton/persistence';
import { insertUser, login, startConsole, type ConsoleTestApp, type Credentials } from '../console/console-test-kit';
import { useCluster, waitFor } from './support/cluster';
import { latenessSummary, printFigures } from './support/figures';

/** The engines' claim poll: longer than the test itself, so only a wake-up can start a run in it. */
const POLL_MS = 600_000;
/** How long a start is awaited: far less than POLL_MS, ample on a loaded machine (measured: tens of ms). */
const START_WAIT_MS = 30_000;

describe('wake-ups: runs due before the next poll start at once', () => {
  const ctx = useCluster('wake-ups');
  let t: ConsoleTestApp;
  let admin: Credentials;

  beforeAll(async () => {
    const { cluster } = ctx;
    await cluster.startEngines(2, { BATON_CLAIM_INTERVAL_MS: String(POLL_MS) });
    await cluster.startExecutors(1);
    t = await startConsole(cluster.ds, Date.now());
    await insertUser(cluster.ds, 'acme-admin', 'TENANT_ADMIN', cluster.tenant.id);
    admin = await login(t, `${cluster.tenant.id}/acme-admin`);
  }, 120_000);
  afterAll(() => t?.close());

  /** The test kit's console clock stands still unless set: the wake-ups are signed with its time, and engines refuse a signature seen before. */
  const post = (path: string, body: Record<string, unknown>) => {
    t.clock.set(Date.now());
    return t.http().post(path).set(admin).send(body);
  };
  const createTask = async (body: Record<string, unknown>): Promise<number> => {
    const res = await post('/api/tasks', { executorApp: 'demo', trigger: { kind: 'MANUAL' }, ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as number;
  };
  const startOf = async (runId: number, attempt = 1): Promise<number> => {
    const record = await waitFor(() => ctx.cluster.records().find((r) => r.runId === runId && r.attempt === attempt), { timeoutMs: START_WAIT_MS, what: `run ${runId} attempt ${attempt} started (a claim poll is ${POLL_MS} ms away)` });
    return record.at;
  };

  it('a manual trigger reaches the handler without waiting for a poll', { timeout: 60_000 }, async () => {
    const taskId = await createTask({ name: 'run-now', handler: 'noop' });
    const delays: number[] = [];
    for (let i = 0; i < 8; i++) {
      const sent = Date.now();
      const res = await post(`/api/tasks/${taskId}/trigger`, {});
      expect(res.status).toBe(201);
      delays.push((await startOf(res.body.id as number)) - sent);
    }
    printFigures('trigger → handler start (ms), claim poll 10 min', latenessSummary(delays));
    // Each start above came well before a poll could have found its run: that is the check.
  });

  it("a flow's child starts as its parent ends, and a retry due before the next poll starts on time", { timeout: 60_000 }, async () => {
    const parent = await createTask({ name: 'parent', handler: 'noop' });
    const child = await createTask({ name: 'child', handler: 'noop' });
    expect((await post('/api/dependencies', { parentTaskId: parent, childTaskId: child, condition: 'ON_SUCCESS' })).status).toBe(201);
    const retried = await createTask({ name: 'retried', handler: 'fail-n-times', params: { failures: 1 }, retry: { maxAttempts: 2, backoffBaseMs: 50 } });

    const flow = await post(`/api/tasks/${parent}/trigger`, {});
    const parentRun = flow.body.id as number;
    await startOf(parentRun);
    const childRun = await waitFor(() => ctx.cluster.ds.getRepository(RunEntity).findOneBy({ parentRunId: parentRun, taskId: child }), { timeoutMs: START_WAIT_MS, what: 'the child run' });
    const parentEnded = (await ctx.cluster.ds.getRepository(RunEntity).findOneByOrFail({ id: parentRun })).finishedAt ?? 0;
    const childGap = (await startOf(childRun.id)) - parentEnded;

    const retry = await post(`/api/tasks/${retried}/trigger`, {});
    const firstAttempt = await startOf(retry.body.id as number, 1);
    const retryGap = (await startOf(retry.body.id as number, 2)) - firstAttempt;

    printFigures('follow-ups without a poll (ms)', { childStartAfterParentEnd: childGap, secondAttemptAfterFirst: retryGap });
    // The child and the second attempt started well before a poll could have found them: that is the check.
  });
});
