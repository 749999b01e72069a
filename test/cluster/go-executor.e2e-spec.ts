import { describe, expect, it } from 'vitest';
import { isTerminal, taskDefaults, type FanOut, type RetryPolicy, type RunState, type Trigger } from '@baton/domain';
import type { RunEntity } from '@baton/persistence';
import { DEMO_DEPENDENCIES, DEMO_TASKS } from '../../apps/embedded/src/demo-tasks';
import { goExecutorCommand } from '../protocol/executor-process';
import { useCluster, waitFor } from './support/cluster';
import { printFigures } from './support/figures';
import { addDependency, insertTask, type TaskSpec } from './support/seed';

/**
 * Issue 26 item 3 — the demo tenant's tasks (apps/embedded/src/demo-tasks.ts) end to end on two
 * Go SDK executors (sdks/go/examples/demo-executor) in place of the demo executor: 1 engine,
 * MariaDB, plus a BROADCAST task. The console is not started, so the tasks run by hand in the demo
 * fire once, soon, instead (a ONCE trigger); the others keep their schedules. Invocations are
 * counted from the executors' record files: nothing may run twice.
 */
describe('cluster: the demo tenant on Go executors (1 engine, 2 Go executors)', () => {
  const ctx = useCluster('go-executor');

  it('runs the demo tasks (cron, fixed rate, retries, a flow, shards) and a broadcast, each invocation once', async () => {
    const c = ctx.cluster;
    await c.startEngines(1);
    const executors = await c.startExecutors(2, {}, goExecutorCommand);
    const soon = Math.ceil((Date.now() + 1_500) / 1000) * 1000;
    const defaults = taskDefaults();
    const spec = (t: Readonly<Record<string, unknown>>): TaskSpec => {
      const trigger = t.trigger as Trigger;
      const isChild = DEMO_DEPENDENCIES.some((d) => d.child === t.name);
      return {
        ...(t as unknown as TaskSpec),
        trigger: trigger.kind === 'MANUAL' && !isChild ? { kind: 'ONCE', at: soon } : trigger,
        retry: { ...defaults.retry, ...(t.retry as Partial<RetryPolicy> | undefined) },
        fanOut: { ...defaults.fanOut, ...(t.fanOut as Partial<FanOut> | undefined) },
      };
    };
    const ids = new Map<string, number>();
    for (const t of [...DEMO_TASKS, { name: 'flush-caches', executorApp: 'demo', handler: 'shard-part', params: { items: 30 }, trigger: { kind: 'ONCE', at: soon }, fanOut: { mode: 'BROADCAST', shards: null } }]) {
      ids.set(t.name as string, await insertTask(c.ds, c.tenant, spec(t)));
    }
    for (const d of DEMO_DEPENDENCIES) await addDependency(c.ds, c.tenant, ids.get(d.parent)!, ids.get(d.child)!, d.condition);
    const id = (name: string) => ids.get(name)!;
    const top = (runs: RunEntity[], name: string) => runs.filter((r) => r.taskId === id(name) && r.cause !== 'SHARD');
    const shardsOf = (runs: RunEntity[], parent: RunEntity) => runs.filter((r) => r.parentRunId === parent.id && r.cause === 'SHARD').sort((a, b) => a.shardIndex! - b.shardIndex!);
    const endedOnce = (runs: RunEntity[], name: string) => top(runs, name).some((r) => isTerminal(r.state as RunState));

    const runs = await waitFor(
      async () => {
        const all = await c.runs();
        return [...ids.keys()].every((name) => endedOnce(all, name)) ? all : undefined;
      },
      { timeoutMs: 40_000, what: 'a run of every demo task ended', detail: async () => JSON.stringify((await c.runs()).map((r) => [r.taskId, r.cause, r.shardIndex, r.state, r.attempt, r.error])) },
    );
    await c.settled({ runIds: runs.filter((r) => isTerminal(r.state as RunState)).map((r) => r.id) }); // past this, a duplicate invocation could only come from a bug
    const all = await c.runs();
    const records = c.records(executors);
    const first = (name: string) => top(all, name).find((r) => isTerminal(r.state as RunState))!;
    printFigures('demo tenant on Go executors', {
      runs: runs.length,
      ...Object.fromEntries([...ids.keys()].map((name) => [name, top(all, name).map((r) => `${r.id} ${r.state} a${r.attempt} e${r.executorId}`).join('; ')])),
      invocations: records.length,
    });

    expect(first('every-10-seconds')).toMatchObject({ state: 'SUCCEEDED', result: { ok: true } });
    expect(first('sleep-2s-every-30s')).toMatchObject({ state: 'SUCCEEDED', result: { sleptMs: 2000 } });
    const failed = first('fails-when-run');
    expect(failed).toMatchObject({ state: 'FAILED', attempt: 2 });
    expect(failed.error).toMatch(/^planned failure on attempt 2/);

    const report = first('build-report');
    expect(report).toMatchObject({ state: 'SUCCEEDED', result: { ms: 5000 } });
    const publish = first('publish-report');
    expect(publish).toMatchObject({ state: 'SUCCEEDED', parentRunId: report.id });
    expect(JSON.parse(publish.parentResults!)).toEqual({ 'build-report': report.result });

    const reindex = first('reindex-in-4-shards');
    expect(reindex).toMatchObject({ state: 'SUCCEEDED', shardTotal: 4 });
    const reindexShards = shardsOf(all, reindex);
    expect(reindexShards.map((s) => [s.shardIndex, s.state])).toEqual([0, 1, 2, 3].map((i) => [i, 'SUCCEEDED']));
    expect(reindexShards.reduce((n, s) => n + (s.result as { items: number }).items, 0)).toBe(1000);

    const flush = first('flush-caches');
    expect(flush).toMatchObject({ state: 'SUCCEEDED', shardTotal: 2 });
    const flushShards = shardsOf(all, flush);
    expect(flushShards.map((s) => (s.result as { items: number }).items)).toEqual([15, 15]);
    const flushRecords = records.filter((r) => flushShards.some((s) => s.id === r.runId));
    expect(new Set(flushRecords.map((r) => r.executor)).size).toBe(2); // one shard on each executor

    // Every invocation of an attempt once, and all of them on the Go executors.
    const attempts = records.map((r) => `${r.runId}:${r.attempt}`);
    expect(new Set(attempts).size).toBe(attempts.length);
    expect(new Set(records.map((r) => r.pid))).toEqual(new Set(executors.map((e) => e.pid)));
  }, 60_000);
});
