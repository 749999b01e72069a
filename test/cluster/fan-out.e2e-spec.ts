import { beforeAll, describe, expect, it } from 'vitest';
import { isTerminal, type RunState } from '@baton/domain';
import type { RunEntity } from '@baton/persistence';
import { useCluster, waitFor } from './support/cluster';
import { printFigures } from './support/figures';
import { addDependency, insertTask } from './support/seed';

/**
 * Issue 14 item 2 — broadcast and sharding across processes (2 engines, 3 demo executors, MariaDB),
 * handler `shard-part` (apps/demo-executor). Invocations are counted from the executors' record
 * files: nothing may run twice, and a retry may re-run only the shard that failed.
 */
describe('cluster: broadcast and sharded tasks (2 engines, 3 executors)', () => {
  const ctx = useCluster('fan-out');
  beforeAll(async () => {
    // An executor silent for 2 s is DOWN, and its runs are reconciled 1 s later (the executor killed mid-broadcast).
    await ctx.cluster.startEngines(2, { BATON_EXECUTOR_DEAD_AFTER_MS: '2000', BATON_EXECUTOR_GRACE_MS: '1000' });
    await ctx.cluster.startExecutors(3);
  }, 120_000);

  const soon = () => Math.ceil((Date.now() + 1_500) / 1000) * 1000;
  const shardsOf = (runs: RunEntity[], parent: RunEntity) => runs.filter((r) => r.cause === 'SHARD' && r.parentRunId === parent.id).sort((a, b) => a.shardIndex! - b.shardIndex!);

  async function ended(taskIds: number[], count: number): Promise<RunEntity[]> {
    const c = ctx.cluster;
    return waitFor(
      async () => {
        const runs = await c.runs(taskIds);
        const fanOuts = runs.filter((r) => r.cause !== 'SHARD');
        return fanOuts.length >= count && fanOuts.every((r) => isTerminal(r.state as RunState)) ? runs : undefined;
      },
      { timeoutMs: 40_000, what: `${count} ended run(s)`, detail: async () => JSON.stringify((await c.runs(taskIds)).map((r) => [r.id, r.cause, r.shardIndex, r.state, r.attempt, r.error])) },
    );
  }

  it('broadcast: one shard on each UP executor, the run ends when they have, its child fires once with their results', async () => {
    const c = ctx.cluster;
    // The executors UP now (three, or four while the test that kills one runs first and its victim is not yet DOWN: a broadcast goes to each UP one).
    const executors = c.executors.filter((e) => e.alive);
    const task = await insertTask(c.ds, c.tenant, {
      name: 'flush-caches',
      trigger: { kind: 'ONCE', at: soon() },
      handler: 'shard-part',
      params: { items: 30 },
      fanOut: { mode: 'BROADCAST', shards: null, failWhen: 'ANY_SHARD_FAILS' },
    });
    const child = await insertTask(c.ds, c.tenant, { name: 'after-flush', trigger: { kind: 'MANUAL' }, handler: 'record' });
    await addDependency(c.ds, c.tenant, task, child);

    await ended([task], 1);
    await waitFor(async () => {
      const all = await c.runs([task, child]);
      return all.some((r) => r.taskId === child && isTerminal(r.state as RunState)) ? all : undefined;
    }, { timeoutMs: 20_000, what: 'the child run ended' });
    await c.settled(); // past this, a second child or a shard run twice could only come from a bug
    const all = await c.runs([task, child]);
    const parent = all.find((r) => r.taskId === task && r.cause !== 'SHARD')!;
    const shards = shardsOf(all, parent);
    const executorIds = (await c.ds.query(`SELECT id FROM executors WHERE tenant_id = ? AND state = 'UP' ORDER BY id`, [c.tenant.id])) as Array<{ id: number }>;
    const records = c.records(executors).filter((rec) => shards.some((s) => s.id === rec.runId));
    printFigures('broadcast over 3 executors', {
      'fan-out run': `${parent.id} ${parent.state}, shardTotal ${parent.shardTotal}`,
      shards: shards.map((s) => `#${s.shardIndex}/${s.shardTotal} run ${s.id} ${s.state} on executor ${s.executorId} (pinned ${s.pinnedExecutorId}), attempt ${s.attempt}`),
      'invocations by executor': records.map((r) => `${r.executor}: run ${r.runId}`),
    });

    expect(parent).toMatchObject({ state: 'SUCCEEDED', shardTotal: executors.length, executorId: null });
    expect(shards.map((s) => [s.shardIndex, s.shardTotal, s.state, s.attempt])).toEqual(executors.map((_, i) => [i, executors.length, 'SUCCEEDED', 1]));
    expect(shards.map((s) => s.pinnedExecutorId)).toEqual(executorIds.map((e) => Number(e.id)));
    expect(shards.every((s) => s.executorId === s.pinnedExecutorId)).toBe(true);
    expect(records).toHaveLength(executors.length);
    expect(new Set(records.map((r) => r.executor)).size).toBe(executors.length);
    const items = (parent.result as { shards: Array<{ result: { items: number } }> }).shards.map((s) => s.result.items);
    expect(items.reduce((n, i) => n + i, 0)).toBe(30);
    const children = all.filter((r) => r.taskId === child);
    expect(children).toHaveLength(1);
    expect(children[0]).toMatchObject({ state: 'SUCCEEDED', parentRunId: parent.id });
    expect(JSON.parse(children[0].parentResults!)).toEqual({ 'flush-caches': parent.result });
  }, 90_000);

  it('sharded: N shards spread over the executors; a failed shard is retried alone; failWhen decides the run', async () => {
    const c = ctx.cluster;
    const retry = { maxAttempts: 2, backoffBaseMs: 200, backoffMaxMs: 500, jitter: 0 };
    const at = soon();
    const [healed, broken, tolerant] = await Promise.all([
      insertTask(c.ds, c.tenant, { name: 'reindex', trigger: { kind: 'ONCE', at }, handler: 'shard-part', params: { items: 100, failShard: 2, failures: 1 }, retry, fanOut: { mode: 'SHARDED', shards: 5, failWhen: 'ANY_SHARD_FAILS' } }),
      insertTask(c.ds, c.tenant, { name: 'export', trigger: { kind: 'ONCE', at }, handler: 'shard-part', params: { items: 100, failShard: 1, failures: 9 }, retry, fanOut: { mode: 'SHARDED', shards: 4, failWhen: 'ANY_SHARD_FAILS' } }),
      insertTask(c.ds, c.tenant, { name: 'warm-up', trigger: { kind: 'ONCE', at }, handler: 'shard-part', params: { items: 100, failShard: 1, failures: 9 }, retry, fanOut: { mode: 'SHARDED', shards: 4, failWhen: 'ALL_SHARDS_FAIL' } }),
    ]);
    const runs = await ended([healed, broken, tolerant], 3);
    await c.settled();
    const all = await c.runs([healed, broken, tolerant]);
    const parentOf = (task: number) => all.find((r) => r.taskId === task && r.cause !== 'SHARD')!;
    const records = c.records();
    const invocations = (run: RunEntity) => records.filter((rec) => rec.runId === run.id).map((rec) => rec.attempt).sort();
    const failedAlarms = (await c.ds.query(`SELECT run_id FROM alarms WHERE tenant_id = ? AND type = 'FAILED'`, [c.tenant.id])) as Array<{ run_id: number }>;
    printFigures('sharded runs', {
      runs: runs.length,
      ...Object.fromEntries(
        [healed, broken, tolerant].map((t) => {
          const p = parentOf(t);
          return [`run ${p.id}`, `${p.state}: ${shardsOf(all, p).map((s) => `#${s.shardIndex} ${s.state} a${s.attempt} e${s.executorId} [${invocations(s).join(',')}]`).join('; ')} — ${p.error ?? ''}`];
        }),
      ),
    });

    const h = parentOf(healed);
    expect(h.state).toBe('SUCCEEDED');
    const hs = shardsOf(all, h);
    expect(hs.map((s) => [s.shardIndex, s.state, s.attempt])).toEqual([
      [0, 'SUCCEEDED', 1],
      [1, 'SUCCEEDED', 1],
      [2, 'SUCCEEDED', 2],
      [3, 'SUCCEEDED', 1],
      [4, 'SUCCEEDED', 1],
    ]);
    expect(hs.map(invocations)).toEqual([[1], [1], [1, 2], [1], [1]]);
    expect(new Set(hs.map((s) => s.executorId)).size).toBeGreaterThanOrEqual(2);
    expect((h.result as { shards: Array<{ result: { items: number } }> }).shards.reduce((n, s) => n + s.result.items, 0)).toBe(100);

    const b = parentOf(broken);
    expect(b.state).toBe('FAILED');
    expect(b.error).toMatch(/^1 of 4 shards did not succeed — shard 1 FAILED: Error: planned failure of shard 1 on attempt 2/);
    expect(shardsOf(all, b).map((s) => [s.state, s.attempt])).toEqual([['SUCCEEDED', 1], ['FAILED', 2], ['SUCCEEDED', 1], ['SUCCEEDED', 1]]);
    // One FAILED alarm, the fan-out run's: a shard's own end raises none. (Of this test's runs: the
    // file's other tests share the cluster, and one of them fails a run of its own.)
    const ours = new Set(all.map((r) => r.id));
    expect(failedAlarms.map((a) => Number(a.run_id)).filter((id) => ours.has(id))).toEqual([b.id]);

    const w = parentOf(tolerant);
    expect(w.state).toBe('SUCCEEDED');
    expect(shardsOf(all, w).filter((s) => s.state === 'FAILED')).toHaveLength(1);
  }, 90_000);

  it('an executor gone mid-broadcast: its shard fails after the grace, the others finish, the run fails naming it; nothing runs twice', async () => {
    const c = ctx.cluster;
    // A victim of its own: the other tests keep their three executors whatever the order.
    const [victim] = await c.startExecutors(1);
    const up = c.executors.filter((e) => e.alive);
    const task = await insertTask(c.ds, c.tenant, {
      name: 'rotate-logs',
      trigger: { kind: 'ONCE', at: soon() },
      handler: 'shard-part',
      params: { ms: 4_000 },
      timeoutMs: 60_000,
      fanOut: { mode: 'BROADCAST', shards: null, failWhen: 'ANY_SHARD_FAILS' },
    });
    const shardsAccepted = await waitFor(async () => {
      const runs = (await c.runs([task])).filter((r) => r.cause === 'SHARD');
      return runs.length === up.length && runs.every((r) => r.state === 'ACCEPTED') ? runs : undefined;
    }, { timeoutMs: 20_000, what: `${up.length} shards ACCEPTED` });
    const victimId = Number(((await c.ds.query(`SELECT id FROM executors WHERE url = ?`, [victim.url])) as Array<{ id: number }>)[0].id);
    await victim.stop('SIGKILL');
    const runs = await ended([task], 1);
    await c.settled();
    const all = await c.runs([task]);
    const parent = all.find((r) => r.cause !== 'SHARD')!;
    const shards = shardsOf(all, parent);
    const lost = shards.find((s) => s.pinnedExecutorId === victimId)!;
    const records = c.records(up.filter((e) => e !== victim)).filter((rec) => shards.some((s) => s.id === rec.runId));
    printFigures('executor killed mid-broadcast', {
      'shards accepted': shardsAccepted.length,
      runs: runs.length,
      result: `${parent.state}: ${parent.error}`,
      shards: shards.map((s) => `#${s.shardIndex} ${s.state} a${s.attempt} pinned ${s.pinnedExecutorId}: ${s.error ?? ''}`),
    });
    expect(parent.state).toBe('FAILED');
    expect(lost.state).toBe('FAILED');
    expect(parent.error).toContain(`shard ${lost.shardIndex} FAILED: executor`);
    expect(shards.filter((s) => s.id !== lost.id).map((s) => s.state)).toEqual(up.slice(1).map(() => 'SUCCEEDED'));
    // The two survivors ran their shard once each; the killed executor's shard was not re-sent elsewhere.
    expect(records.map((r) => r.runId).sort()).toEqual(shards.filter((s) => s.id !== lost.id).map((s) => s.id).sort());
  }, 120_000);
});
