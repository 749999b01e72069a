/**
 * Wake-ups instead of polls (issue 22 item 2): with the engines' claim poll set to 10 s, a run
 * due now still starts within a fraction of a second — a manual trigger through a console in
 * another process than the engines (POST /baton/wake), a flow's child (the engine that ended its
 * parent claims it), a retry due before the next poll. Without the wake-ups each would wait for
 * a poll, up to 10 s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunEntity } from '@baton/persistence';
import { insertUser, login, startConsole, type ConsoleTestApp, type Credentials } from '../console/console-test-kit';
import { useCluster, waitFor } from './support/cluster';
import { latenessSummary, printFigures } from './support/figures';

/** Far longer than any start measured here: a run found by a poll instead would take up to this. */
const POLL_MS = 10_000;
/** What "at once" means here, on 2 shared cores (measured: tens of ms; see docs/BENCHMARKS.md, run-now). */
const AT_ONCE_MS = 1_500;

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
    const record = await waitFor(() => ctx.cluster.records().find((r) => r.runId === runId && r.attempt === attempt), { timeoutMs: POLL_MS * 2, what: `run ${runId} attempt ${attempt} started` });
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
    printFigures('trigger → handler start (ms), claim poll 10 s', latenessSummary(delays));
    expect(Math.max(...delays)).toBeLessThan(AT_ONCE_MS);
  });

  it("a flow's child starts as its parent ends, and a retry due before the next poll starts on time", { timeout: 60_000 }, async () => {
    const parent = await createTask({ name: 'parent', handler: 'noop' });
    const child = await createTask({ name: 'child', handler: 'noop' });
    expect((await post('/api/dependencies', { parentTaskId: parent, childTaskId: child, condition: 'ON_SUCCESS' })).status).toBe(201);
    const retried = await createTask({ name: 'retried', handler: 'fail-n-times', params: { failures: 1 }, retry: { maxAttempts: 2, backoffBaseMs: 50 } });

    const flow = await post(`/api/tasks/${parent}/trigger`, {});
    const parentRun = flow.body.id as number;
    await startOf(parentRun);
    const childRun = await waitFor(() => ctx.cluster.ds.getRepository(RunEntity).findOneBy({ parentRunId: parentRun, taskId: child }), { timeoutMs: POLL_MS * 2, what: 'the child run' });
    const parentEnded = (await ctx.cluster.ds.getRepository(RunEntity).findOneByOrFail({ id: parentRun })).finishedAt ?? 0;
    const childGap = (await startOf(childRun.id)) - parentEnded;

    const retry = await post(`/api/tasks/${retried}/trigger`, {});
    const firstAttempt = await startOf(retry.body.id as number, 1);
    const retryGap = (await startOf(retry.body.id as number, 2)) - firstAttempt;

    printFigures('follow-ups without a poll (ms)', { childStartAfterParentEnd: childGap, secondAttemptAfterFirst: retryGap });
    expect(childGap).toBeLessThan(AT_ONCE_MS);
    expect(retryGap).toBeLessThan(AT_ONCE_MS);
  });
});
