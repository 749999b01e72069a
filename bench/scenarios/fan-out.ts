import { isTerminal, type RunState } from '@baton/domain';
import { TenantEntity, type RunEntity } from '@baton/persistence';
import { Cluster, sleep } from '../../test/cluster/support/cluster';
import { invocationCheck } from '../../test/cluster/support/figures';
import { insertTasks } from '../../test/cluster/support/seed';
import { machine, writeResult } from '../support/infra';
import { option, type Scenario } from '../support/scenario';
import { table } from '../support/table';
import { BURST_EXECUTOR_ENV, BURST_TENANT, stats, type StageStats } from './burst';

/**
 * Fan-out (issue 14 item 2): one fire of a SHARDED task with N shards, against the same N
 * handler runs as N separate ONCE tasks due at the same instant — what the fan-out costs over a
 * plain burst of the same work. Both go the user's way: tasks stored as the console stores them,
 * fired by the planner at their ONCE time, shards written by the engine, dispatched to the demo
 * executors (handler `shard-part` / `noop`). Measured: fire → last handler end, fire → the
 * fan-out run's end (it ends after its last shard, in that shard's transaction) against the last
 * plain run recorded as ended (its row's last update: both are the database's view), the shards'
 * dispatch lateness (dispatched − fire), and every invocation counted from the executors' records.
 */

export interface FanOutCase {
  shards: number;
  engines: number;
  /** The fan-out run: fire → its own end (the last shard's callback ended it). */
  fanOutEndMs: number;
  /** Fire → the last shard's handler end. */
  shardsDoneMs: number;
  shardDispatched: StageStats;
  /** The same work as N ONCE tasks: fire → the last run's handler end. */
  plainDoneMs: number;
  /** Fire → the last of those runs recorded as ended (its row's last update): what the fan-out run's end compares with. */
  plainRecordedMs: number;
  plainDispatched: StageStats;
  duplicates: number;
  missing: number;
}

async function waitEnded(c: Cluster, taskIds: number[], expected: number, timeoutMs: number): Promise<RunEntity[]> {
  const until = Date.now() + timeoutMs;
  let runs: RunEntity[] = [];
  while (Date.now() < until) {
    await sleep(250);
    runs = await c.runs(taskIds);
    if (runs.length >= expected && runs.every((r) => isTerminal(r.state as RunState))) return runs;
  }
  throw new Error(`fan-out bench: ${runs.filter((r) => isTerminal(r.state as RunState)).length} of ${expected} runs ended in time`);
}

async function runCase(shards: number, engines: number): Promise<FanOutCase> {
  const c = await Cluster.open(`fo${shards}x${engines}`);
  let failed = true;
  try {
    await c.ds.getRepository(TenantEntity).update({ id: c.tenant.id }, BURST_TENANT);
    await c.startEngines(engines);
    await c.startExecutors(2, BURST_EXECUTOR_ENV);

    const fire = Math.ceil((Date.now() + 3_000) / 1000) * 1000;
    const [task] = await insertTasks(c.ds, c.tenant, [
      { name: 'sharded', trigger: { kind: 'ONCE', at: fire }, handler: 'shard-part', params: { items: shards * 10 }, fanOut: { mode: 'SHARDED', shards, failWhen: 'ANY_SHARD_FAILS' } },
    ]);
    const fanOutRuns = await waitEnded(c, [task], shards + 1, 60_000 + shards * 50);
    const parent = fanOutRuns.find((r) => r.cause !== 'SHARD')!;
    const shardRuns = fanOutRuns.filter((r) => r.cause === 'SHARD');

    const plainFire = Math.ceil((Date.now() + 3_000) / 1000) * 1000;
    const plainTasks = await insertTasks(
      c.ds,
      c.tenant,
      Array.from({ length: shards }, (_, i) => ({ name: `plain-${i}`, trigger: { kind: 'ONCE' as const, at: plainFire }, handler: 'noop' })),
    );
    const plainRuns = await waitEnded(c, plainTasks, shards, 60_000 + shards * 50);
    await sleep(300); // the last record lines
    const check = invocationCheck(c.records(), [...shardRuns, ...plainRuns].map((r) => r.id));
    const lastEnd = (runs: RunEntity[]) => Math.max(...runs.map((r) => r.finishedAt ?? NaN));
    const lastRecorded = (runs: RunEntity[]) => Math.max(...runs.map((r) => r.updatedAt));
    failed = false;
    return {
      shards,
      engines,
      fanOutEndMs: parent.finishedAt! - fire,
      shardsDoneMs: lastEnd(shardRuns) - fire,
      shardDispatched: stats(shardRuns.map((r) => r.dispatchedAt! - fire)),
      plainDoneMs: lastEnd(plainRuns) - plainFire,
      plainRecordedMs: lastRecorded(plainRuns) - plainFire,
      plainDispatched: stats(plainRuns.map((r) => r.dispatchedAt! - plainFire)),
      duplicates: check.duplicated.length,
      missing: check.missing.length + (parent.state === 'SUCCEEDED' ? 0 : 1),
    };
  } finally {
    await c.close(failed);
  }
}

export const fanOut: Scenario = {
  name: 'fan-out',
  description: 'one SHARDED fire of 100 / 1,000 shards against the same runs as ONCE tasks: fire → end, shard dispatch lateness, duplicates',
  // Not in the quick set, which stays under 10 minutes: `npm run bench -- fan-out`.
  quickSet: false,
  async run({ args, log }) {
    const sizes = (option(args, 'shards') ?? '100,1000').split(',').map(Number);
    const engines = Number(option(args, 'engines') ?? '2');
    const cases: FanOutCase[] = [];
    for (const n of sizes) {
      log(`fan-out: ${n} shards on ${engines} engine(s), 2 executors…`);
      cases.push(await runCase(n, engines));
    }
    const rows = cases.map((r) => [
      r.shards,
      r.engines,
      r.shardDispatched.p50,
      r.shardDispatched.p99,
      r.shardsDoneMs,
      r.fanOutEndMs,
      r.plainDispatched.p99,
      r.plainDoneMs,
      r.plainRecordedMs,
      (r.fanOutEndMs / r.plainRecordedMs).toFixed(2),
      r.duplicates,
      r.missing,
    ]);
    console.log(
      `Fan-out — one SHARDED fire against the same runs as ONCE tasks (ms from the fire time)\n${table(
        ['shards', 'eng', 'shard disp p50', 'shard disp p99', 'shards done', 'fan-out run end', 'plain disp p99', 'plain done', 'plain recorded', 'ratio', 'dup', 'missing'],
        rows,
      )}\n`,
    );
    writeResult('fan-out.json', { benchmark: 'fan-out', machine: machine(), executorEnv: BURST_EXECUTOR_ENV, cases });
    return cases.map((r): [string, string] => [
      `fan-out ${r.shards} shards`,
      `run ended ${r.fanOutEndMs} ms after its fire (shards done ${r.shardsDoneMs} ms; as ${r.shards} ONCE tasks: done ${r.plainDoneMs} ms, recorded ${r.plainRecordedMs} ms, ×${(r.fanOutEndMs / r.plainRecordedMs).toFixed(2)}), shard dispatch p99 ${r.shardDispatched.p99} ms, dup ${r.duplicates}, missing ${r.missing}`,
    ]);
  },
};
