import { isTerminal, type RunState } from '@baton/domain';
import { ExecutorEntity, type RunEntity } from '@baton/persistence';
import { waitFor, type Cluster, type InvocationRecord } from './cluster';
import { countBy, invocationCheck, lateness, latenessSummary } from './figures';
import { insertTasks } from './seed';

/**
 * The burst scenario of issue #3, on the planner path: `n` ONCE tasks (handler `noop`) all due
 * at the same round second T, inserted a few seconds ahead so the planners create the runs
 * (one per task) and the claimers hold them in memory until T.
 */
export async function seedBurst(cluster: Cluster, n: number, leadMs = 5_000): Promise<{ due: number; taskIds: number[]; seededInMs: number }> {
  const started = Date.now();
  const due = Math.ceil((started + leadMs) / 1000) * 1000;
  const taskIds = await insertTasks(
    cluster.ds,
    cluster.tenant,
    Array.from({ length: n }, (_, i) => ({ name: `burst-${String(i).padStart(5, '0')}`, trigger: { kind: 'ONCE' as const, at: due }, handler: 'noop' })),
  );
  const seededInMs = Date.now() - started;
  if (Date.now() > due - 2_500) throw new Error(`seeding ${n} tasks took ${seededInMs} ms: the burst at T is too close to plan ahead; raise leadMs`);
  return { due, taskIds, seededInMs };
}

/** Fast count of the tenant's runs dispatched so far (dispatched_at set), for timing a kill. */
export async function dispatchedCount(cluster: Cluster): Promise<number> {
  const rows: Array<{ n: number | string }> = await cluster.ds.query('SELECT COUNT(*) AS n FROM runs WHERE tenant_id = ? AND dispatched_at IS NOT NULL', [cluster.tenant.id]);
  return Number(rows[0].n);
}

/** Waits until the burst's tasks have `n` runs and every one of them is terminal; returns them. */
export async function waitBurstEnded(cluster: Cluster, taskIds: number[], n: number, timeoutMs: number): Promise<RunEntity[]> {
  let last: RunEntity[] = [];
  await waitFor(
    async () => {
      last = await cluster.runs(taskIds);
      return last.length >= n && last.every((r) => isTerminal(r.state as RunState));
    },
    { timeoutMs, intervalMs: 250, what: `${n} burst runs to end`, detail: () => `${last.length} run(s): ${JSON.stringify(countBy(last, (r) => r.state))}` },
  );
  return last;
}

export interface BurstFigures {
  runs: number;
  states: Record<string, number>;
  makespanToLastAckMs: number;
  makespanToLastCallbackMs: number;
  latenessMs: ReturnType<typeof latenessSummary>;
  byEngine: Record<string, number>;
  byExecutor: Record<string, number>;
  invocationsByExecutorProcess: Record<string, number>;
  invocations: number;
  duplicated: Array<{ runId: number; invocations: InvocationRecord[] }>;
  missing: number[];
}

/**
 * The burst's figures: makespan from T to the last ack (accepted_at) and to the last callback
 * recorded (updated_at of the ended run), lateness (dispatched_at − scheduled_at), the split
 * across engines (claimed_by: the node that dispatched) and executors, and the handler
 * invocations per run id from the executors' record files (not from the engine).
 */
export async function burstFigures(cluster: Cluster, due: number, runs: RunEntity[]): Promise<BurstFigures> {
  const executors = await cluster.ds.getRepository(ExecutorEntity).find({ where: { tenantId: cluster.tenant.id } });
  const executorName = new Map(executors.map((e) => [e.id, cluster.executors.find((x) => x.url.replace(/\/+$/, '') === e.url.replace(/\/+$/, ''))?.name ?? `executor#${e.id}`]));
  const records = cluster.records();
  const check = invocationCheck(records, runs.map((r) => r.id));
  const burstRecords = records.filter((r) => check.perRun.has(r.runId));
  const max = (values: Array<number | null>) => Math.max(...values.filter((v): v is number => v !== null));
  return {
    runs: runs.length,
    states: countBy(runs, (r) => r.state),
    makespanToLastAckMs: max(runs.map((r) => r.acceptedAt)) - due,
    makespanToLastCallbackMs: max(runs.filter((r) => r.finishedAt !== null).map((r) => r.updatedAt)) - due,
    latenessMs: latenessSummary(lateness(runs)),
    byEngine: countBy(runs, (r) => r.claimedBy),
    byExecutor: countBy(runs, (r) => (r.executorId === null ? null : (executorName.get(r.executorId) ?? `executor#${r.executorId}`))),
    invocationsByExecutorProcess: countBy(burstRecords, (r) => `${r.executor} (pid ${r.pid})`),
    invocations: burstRecords.length,
    duplicated: check.duplicated,
    missing: check.missing,
  };
}
