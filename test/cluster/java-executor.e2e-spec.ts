import { beforeAll, describe, expect, it } from 'vitest';
import { isTerminal, withTaskDefaults, type RunState, type Trigger } from '@baton/domain';
import type { RunEntity } from '@baton/persistence';
import { DEMO_DEPENDENCIES, DEMO_TASKS } from '../../apps/embedded/src/demo-tasks';
import { javaExecutorCommand } from '../protocol/executor-process';
import { ensureJavaSdkBuilt } from '../protocol/java-sdk-build';
import { useCluster, waitFor } from './support/cluster';
import { printFigures } from './support/figures';
import { addDependency, insertTask, type TaskSpec } from './support/seed';

/**
 * Issue 26 — the demo tenant's tasks (apps/embedded/src/demo-tasks.ts: cron, fixed rate, a
 * failing task with retries, a parent → child flow, a SHARDED task) plus a BROADCAST task, end to
 * end on 2 engines (MariaDB) and 2 Java executors (sdks/java's demo handlers) in place of the
 * demo executor. The tasks run by hand in the demo fire once, soon (no console here). Invocations are counted from the executors'
 * record files: nothing runs twice.
 */
describe('cluster: the demo tenant\'s tasks on Java executors (2 engines, 2 Java SDK executors)', () => {
  beforeAll(() => void ensureJavaSdkBuilt(), 180_000); // before the cluster (and its lock): a stale jar is rebuilt outside the test's time
  const ctx = useCluster('java-executor');

  it('runs every demo task, the flow, the shards and a broadcast; each attempt once', async () => {
    const c = ctx.cluster;
    await c.startEngines(2);
    const executors = await c.startExecutors(2, {}, javaExecutorCommand);
    const at = Math.ceil((Date.now() + 1_500) / 1000) * 1000;
    const soon: Trigger = { kind: 'ONCE', at };
    const ids = new Map<string, number>();
    for (const task of DEMO_TASKS) {
      const { tenantId: _tenant, ...definition } = withTaskDefaults(task, c.tenant.id);
      // Tasks run by hand in the demo fire once, soon; a child keeps its MANUAL trigger: its parent fires it.
      const child = DEMO_DEPENDENCIES.some((d) => d.child === definition.name);
      const spec = { ...definition, trigger: definition.trigger.kind === 'MANUAL' && !child ? soon : definition.trigger } as TaskSpec;
      ids.set(spec.name, await insertTask(c.ds, c.tenant, spec));
    }
    for (const edge of DEMO_DEPENDENCIES) await addDependency(c.ds, c.tenant, ids.get(edge.parent)!, ids.get(edge.child)!);
    const broadcast = withTaskDefaults({ name: 'flush-caches', executorApp: 'demo', handler: 'shard-part', params: { items: 30 }, fanOut: { mode: 'BROADCAST', shards: null } }, c.tenant.id);
    ids.set('flush-caches', await insertTask(c.ds, c.tenant, { ...broadcast, trigger: soon } as TaskSpec));

    const taskIds = [...ids.values()];
    const byName = (all: RunEntity[], name: string) => all.filter((r) => r.taskId === ids.get(name) && r.cause !== 'SHARD');
    const ended = (all: RunEntity[], name: string) => byName(all, name).some((r) => isTerminal(r.state as RunState));
    const all = await waitFor(
      async () => {
        const runs = await c.runs(taskIds);
        return [...ids.keys()].every((name) => ended(runs, name)) ? runs : undefined;
      },
      { timeoutMs: 40_000, what: 'a finished run of every demo task', detail: async () => JSON.stringify((await c.runs(taskIds)).map((r) => [r.taskId, r.cause, r.shardIndex, r.state, r.attempt, r.error?.split('\n')[0]])) },
    );
    await c.settled({ runIds: all.filter((r) => isTerminal(r.state as RunState)).map((r) => r.id) }); // past this, a run twice could only come from a bug
    const records = c.records(executors);
    const first = (name: string) => byName(all, name).find((r) => isTerminal(r.state as RunState))!;
    const shardsOf = (parent: RunEntity) => all.filter((r) => r.cause === 'SHARD' && r.parentRunId === parent.id).sort((a, b) => a.shardIndex! - b.shardIndex!);
    printFigures('demo tasks on Java executors', Object.fromEntries([...ids.keys()].map((name) => {
      const r = first(name);
      return [name, `run ${r.id} ${r.state} attempt ${r.attempt}${r.error ? ` — ${r.error.split('\n')[0]}` : ''}`];
    })));

    expect(first('every-10-seconds')).toMatchObject({ state: 'SUCCEEDED', result: { ok: true } });
    expect(first('sleep-2s-every-30s')).toMatchObject({ state: 'SUCCEEDED', result: { sleptMs: 2000 } });
    const failed = first('fails-when-run');
    expect(failed).toMatchObject({ state: 'FAILED', attempt: 2 });
    expect(failed.error).toMatch(/^java\.lang\.IllegalStateException: planned failure on attempt 2 \(fails 5 time\(s\)\)/);
    const report = first('build-report');
    expect(report).toMatchObject({ state: 'SUCCEEDED', result: { ms: 5000 } });
    expect(report.progress).toBeGreaterThanOrEqual(10); // interim callbacks reached the engine (it keeps the last interim's figure)
    const logs = (await c.ds.query('SELECT message FROM run_logs WHERE run_id = ? ORDER BY id', [report.id])) as Array<{ message: string }>;
    expect(logs.map((l) => l.message)).toEqual(Array.from({ length: 10 }, (_, i) => `step ${i + 1}/10 done`));
    const publish = first('publish-report');
    expect(publish).toMatchObject({ state: 'SUCCEEDED', parentRunId: report.id });
    expect(JSON.parse(publish.parentResults!)).toEqual({ 'build-report': { ms: 5000 } });

    const sharded = first('reindex-in-4-shards');
    expect(sharded).toMatchObject({ state: 'SUCCEEDED', shardTotal: 4 });
    expect(shardsOf(sharded).map((s) => [s.shardIndex, s.state, (s.result as { items: number }).items])).toEqual([
      [0, 'SUCCEEDED', 250],
      [1, 'SUCCEEDED', 250],
      [2, 'SUCCEEDED', 250],
      [3, 'SUCCEEDED', 250],
    ]);
    const flush = first('flush-caches');
    expect(flush).toMatchObject({ state: 'SUCCEEDED', shardTotal: 2 });
    const flushShards = shardsOf(flush);
    expect(flushShards.map((s) => (s.result as { items: number }).items)).toEqual([15, 15]);
    // A broadcast puts one shard on each executor.
    const flushRecords = records.filter((rec) => flushShards.some((s) => s.id === rec.runId));
    expect(new Set(flushRecords.map((r) => r.executor)).size).toBe(2);

    // Every attempt of every run ran once, on a Java executor.
    const attempts = records.map((r) => `${r.runId}:${r.attempt}`);
    expect(new Set(attempts).size).toBe(attempts.length);
    expect(records.filter((r) => r.runId === failed.id).map((r) => r.attempt).sort()).toEqual([1, 2]);
  }, 60_000);
});
