/**
 * `baton node`: a console and an engine in one process, beside an engine of its own process, on one
 * MariaDB. With every engine's claim poll at 10 minutes, a run submitted through the node's API
 * starts only if a wake-up reaches an engine: the node's own engine claims its tenant's runs by a
 * call (NodeWakeups), and a tenant of a group only the other engine serves is woken over HTTP.
 * How soon they start is a figure of the benchmarks, not asserted here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { RunEntity } from '@baton/persistence';
import { insertApiKey, type Credentials } from '../console/console-test-kit';
import { useCluster, waitFor } from './support/cluster';
import { seedTenant, type SeededTenant } from './support/seed';
import type { EngineProcess, ExecutorNode } from './support/processes';

/** Longer than the test: only a wake-up can start a run in it. */
const POLL_MS = '600000';
const START_WAIT_MS = 30_000;

describe('baton node: console and engine in one process, in a cluster', () => {
  const ctx = useCluster('node');
  let node: EngineProcess;
  let engine: EngineProcess;
  let other: SeededTenant;
  let otherExecutor: ExecutorNode;
  const keys = new Map<string, Credentials>();

  beforeAll(async () => {
    const { cluster } = ctx;
    [node] = await cluster.startNodes(1, { BATON_CLAIM_INTERVAL_MS: POLL_MS });
    // The plain engine serves the cluster's group and another one, which the node does not.
    other = await seedTenant(cluster.ds, { id: 'globex', engineGroup: 'g-node-other' });
    [engine] = await cluster.startEngines(1, { BATON_CLAIM_INTERVAL_MS: POLL_MS, BATON_ENGINE_GROUPS: `${cluster.tenant.engineGroup},${other.engineGroup}` });
    await cluster.startExecutors(1);
    otherExecutor = await cluster.startExecutorOf(other, 'globex-executor');
    keys.set(cluster.tenant.id, await insertApiKey(cluster.ds, cluster.tenant.id, 'TENANT_ADMIN'));
    keys.set(other.id, await insertApiKey(cluster.ds, other.id, 'TENANT_ADMIN'));
  }, 120_000);

  /** A call to the node's REST API as the tenant's admin (an API key). */
  const api = async (tenantId: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await fetch(`${node.url}${path}`, { method, headers: { 'content-type': 'application/json', ...keys.get(tenantId)! }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const triggered = async (tenantId: string, name: string): Promise<number> => {
    const task = await api(tenantId, 'POST', '/api/tasks', { name, executorApp: 'demo', handler: 'noop', trigger: { kind: 'MANUAL' } });
    expect(task.status, JSON.stringify(task.body)).toBe(201);
    const run = await api(tenantId, 'POST', `/api/tasks/${task.body.id as number}/trigger`, {});
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    return run.body.id as number;
  };
  const ended = (runId: number) =>
    waitFor(async () => ((await ctx.cluster.ds.getRepository(RunEntity).findOneBy({ id: runId, state: 'SUCCEEDED' })) ?? undefined), {
      timeoutMs: START_WAIT_MS,
      what: `run ${runId} SUCCEEDED (a claim poll is ${POLL_MS} ms away)`,
    });

  it("claims the runs submitted through its API for a group it serves in its own process, without a poll", { timeout: 60_000 }, async () => {
    for (let i = 0; i < 5; i++) {
      const runId = await triggered(ctx.cluster.tenant.id, `on-the-node-${i}`);
      expect((await ended(runId)).claimedBy).toBe(node.nodeId);
    }
    expect(ctx.cluster.records().length).toBe(5);
  });

  it("writes a trigger's run already sent (DISPATCHED to an executor, held by its own engine) once its task's dispatch fields are known, and the run is started once", { timeout: 90_000 }, async () => {
    const tenantId = ctx.cluster.tenant.id;
    const task = await api(tenantId, 'POST', '/api/tasks', { name: 'sent-at-once', executorApp: 'demo', handler: 'noop', trigger: { kind: 'MANUAL' } });
    expect(task.status, JSON.stringify(task.body)).toBe(201);
    // The first trigger of a task is written PENDING (no batch has read its dispatch fields yet);
    // one of the next, triggered as soon as the one before has ended, is written sent.
    const runIds: number[] = [];
    let sent: Record<string, unknown> | undefined;
    for (let i = 0; i < 40 && !sent; i++) {
      const run = await api(tenantId, 'POST', `/api/tasks/${task.body.id as number}/trigger`, {});
      expect(run.status, JSON.stringify(run.body)).toBe(201);
      runIds.push(run.body.id as number);
      if (run.body.state === 'DISPATCHED') sent = run.body;
      else expect(run.body.state).toBe('PENDING');
      await ended(run.body.id as number);
    }
    expect(sent, 'a trigger answered DISPATCHED').toBeDefined();
    const row = await ended(sent!.id as number);
    expect(row.claimedBy).toBe(node.nodeId);
    expect(row.executorId).not.toBeNull();
    const started = ctx.cluster.records().filter((r) => runIds.includes(r.runId)).map((r) => r.runId);
    expect(started.sort((a, b) => a - b)).toEqual([...runIds].sort((a, b) => a - b));
  });

  it("wakes the engines of a group it does not serve over HTTP, as a console of its own would", { timeout: 60_000 }, async () => {
    const runId = await triggered(other.id, 'elsewhere');
    expect((await ended(runId)).claimedBy).toBe(engine.nodeId);
    expect(ctx.cluster.records([otherExecutor]).map((r) => r.runId)).toEqual([runId]);
  });
});
