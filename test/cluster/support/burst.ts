import { isTerminal, type RunState } from '@baton/domain';
import { ExecutorEntity, type RunEntity } from '@baton/persistence';
import { sleep, type Cluster, type InvocationRecord } from './cluster';
import { executorRunStatus } from './engine-http';
import { countBy, invocationCheck, lateness, latenessSummary } from './figures';
import { insertTasks } from './seed';

/**
 * The burst scenario of issue #3, on the planner path: `n` ONCE tasks (handler `noop`) all due
 * at the same round second T, `leadMs` ahead so the planners create the runs (one per task) and
 * the claimers hold them in memory until T. The tasks are inserted paused, then given T and
 * released in one UPDATE: T is chosen after the inserts, however long a loaded machine took.
 */
export async function seedBurst(cluster: Cluster, n: number, leadMs = 5_000): Promise<{ due: number; taskIds: number[]; seededInMs: number }> {
  const started = Date.now();
  const parked = started + 86_400_000;
  const taskIds = await insertTasks(
    cluster.ds,
    cluster.tenant,
    Array.from({ length: n }, (_, i) => ({ name: `burst-${String(i).padStart(5, '0')}`, trigger: { kind: 'ONCE' as const, at: parked }, handler: 'noop', paused: true })),
  );
  const seededInMs = Date.now() - started;
  const due = Math.ceil((Date.now() + leadMs) / 1000) * 1000;
  await cluster.ds.query('UPDATE tasks SET once_at = ?, next_fire_at = ?, paused = ? WHERE tenant_id = ? AND once_at = ?', [due, due, false, cluster.tenant.id, parked]);
  if (Date.now() > due - 2_500) throw new Error(`releasing ${n} tasks took until ${due - Date.now()} ms before T: too close to plan ahead; raise leadMs`);
  return { due, taskIds, seededInMs };
}

/** Fast count of the tenant's runs dispatched so far (dispatched_at set), for timing a kill. */
export async function dispatchedCount(cluster: Cluster): Promise<number> {
  const rows: Array<{ n: number | string }> = await cluster.ds.query('SELECT COUNT(*) AS n FROM runs WHERE tenant_id = ? AND dispatched_at IS NOT NULL', [cluster.tenant.id]);
  return Number(rows[0].n);
}

/**
 * Waits until the burst's tasks have `n` runs and every one of them is terminal; returns them.
 * Fails after `timeoutMs`, or earlier when nothing moved for `stallMs` (runs stuck for good),
 * naming the stuck runs: their rows (times relative to `t0`), their handler invocations and
 * what their executor says of them (`GET /baton/runs/{id}`).
 */
export async function waitBurstEnded(cluster: Cluster, taskIds: number[], n: number, timeoutMs: number, options: { stallMs?: number; t0?: number } = {}): Promise<RunEntity[]> {
  const stallMs = options.stallMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  let last: RunEntity[] = [];
  let signature = '';
  let movedAt = Date.now();
  for (;;) {
    last = await cluster.runs(taskIds);
    if (last.length >= n && last.every((r) => isTerminal(r.state as RunState))) return last;
    const now = Date.now();
    const sig = `${last.length}:${JSON.stringify(countBy(last, (r) => r.state))}`;
    if (sig !== signature) {
      signature = sig;
      movedAt = now;
    }
    if (now > deadline || now - movedAt > stallMs) {
      const why = now > deadline ? `timed out after ${timeoutMs} ms` : `nothing moved for ${stallMs} ms`;
      throw new Error(`${why} waiting for ${n} burst runs to end: ${last.length} run(s) ${JSON.stringify(countBy(last, (r) => r.state))}\n${await describeStuckRuns(cluster, last, options.t0 ?? 0)}`);
    }
    await sleep(250);
  }
}

/** The runs not ended, as far as the database, the record files and their executors tell. */
export async function describeStuckRuns(cluster: Cluster, runs: RunEntity[], t0: number, limit = 20): Promise<string> {
  const stuck = runs.filter((r) => !isTerminal(r.state as RunState));
  const executors = await cluster.ds.getRepository(ExecutorEntity).find({ where: { tenantId: cluster.tenant.id } });
  const records = cluster.records();
  const rel = (t: number | null) => (t === null ? '-' : `${t - t0 >= 0 ? '+' : ''}${t - t0}`);
  const lines: string[] = [];
  for (const r of stuck.slice(0, limit)) {
    const executor = executors.find((e) => e.id === r.executorId);
    const invoked = records.filter((x) => x.runId === r.id).map((x) => `attempt ${x.attempt} on ${x.executor} at ${rel(x.at)}`);
    const status = executor ? await executorRunStatus(executor.url, cluster.tenant, r.id).then((s) => JSON.stringify(s.body.attempts), (e: Error) => e.message) : 'no executor';
    lines.push(
      `  run ${r.id} ${r.state} attempt ${r.attempt} claimed_by ${r.claimedBy} executor ${r.executorId} dispatched ${rel(r.dispatchedAt)} accepted ${rel(r.acceptedAt)} updated ${rel(r.updatedAt)}` +
        ` | invoked: ${invoked.join(', ') || 'never'} | executor says: ${status}`,
    );
  }
  return `stuck runs (times in ms relative to ${t0 ? 'the reference instant' : 'epoch'}; ${stuck.length} in all):\n${lines.join('\n')}`;
}

export interface BurstFigures {
  runs: number;
  states: Record<string, number>;
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
