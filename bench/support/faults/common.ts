import { isTerminal, type RetryPolicy, type RunState } from '@baton/domain';
import { RunEntity, TenantEntity } from '@baton/persistence';
import { describeStuckRuns } from '../../../test/cluster/support/burst';
import { sleep, type Cluster, type InvocationRecord } from '../../../test/cluster/support/cluster';
import { countBy } from '../../../test/cluster/support/figures';
import { insertTasks } from '../../../test/cluster/support/seed';
import { BURST_TENANT } from '../../scenarios/burst';

/**
 * What every fault case shares: seeding runs as direct PENDING rows (the burst scenario's way:
 * planner bypassed, the claim → dispatch → callback path measured), waiting for them to end
 * through a fault (database errors while it is down are waited out), and counting lost and
 * duplicated runs from the executors' own record files, not from the engine's tables.
 */

/** One fault case's result: a row of the faults table and of bench/results/faults.json. */
export interface FaultResult {
  fault: string;
  /** The configuration that matters for the figures (heartbeats, grace, delays…). */
  config: Record<string, string | number>;
  runs: number;
  /** Runs never ended (not terminal when the case gave up waiting). */
  lost: number;
  /** Runs whose handler completed more than once, or ran one attempt twice. */
  duplicated: number;
  /** Runs started again after their first execution was cut off (at-least-once re-runs, not duplicates). */
  reRuns: number;
  states: Record<string, number>;
  /** kill → the victim's runs released or re-dispatched by a survivor (engine kill only). */
  takeoverMs: number | null;
  /** The fault ended (or happened, for a kill) → every affected run ended. */
  recoveryMs: number;
  /** Case-specific figures (printed and written to the JSON). */
  figures: Record<string, unknown>;
  lostRunIds: number[];
  duplicatedRunIds: number[];
}

/** The tenant throttles opened as in the burst scenario (policy, not cost). */
export async function openThrottles(c: Cluster): Promise<void> {
  await c.ds.getRepository(TenantEntity).update({ id: c.tenant.id }, BURST_TENANT);
}

export interface RunBatch {
  handler: string;
  /** Due instants, one run each. */
  dueAt: number[];
  /** Run params (each run's own: `params(i)`). */
  params?: (i: number) => Record<string, unknown>;
  retry?: Partial<RetryPolicy>;
  /** Per-task alarm silence window; 0 = every alarm its own (none collapsed). */
  alarmSilenceMs?: number;
  /** Task name prefix (default `fault`): several batches in one tenant need their own. */
  taskPrefix?: string;
}

/** Runs per task: ≤ 100 keeps each task-queue token bucket (burst 1,000) out of the way. */
const RUNS_PER_TASK = 100;

/** Inserts MANUAL tasks and one PENDING run per due instant; returns the run ids. */
export async function seedRuns(c: Cluster, batch: RunBatch): Promise<number[]> {
  const n = batch.dueAt.length;
  const taskCount = Math.max(1, Math.ceil(n / RUNS_PER_TASK));
  const taskIds = await insertTasks(
    c.ds,
    c.tenant,
    Array.from({ length: taskCount }, (_, i) => ({
      name: `${batch.taskPrefix ?? 'fault'}-${batch.handler}-${i}`,
      trigger: { kind: 'MANUAL' as const },
      handler: batch.handler,
      // Every run must execute, however late a fault makes it: the default FIRE_ONCE_NOW would
      // end the older late runs of a task SKIPPED on takeover (by design, measured: docs).
      misfirePolicy: 'FIRE_ALL_MISSED' as const,
      ...(batch.retry ? { retry: { maxAttempts: 1, backoffBaseMs: 1_000, backoffMaxMs: 60_000, jitter: 0.2, ...batch.retry } } : {}),
      ...(batch.alarmSilenceMs !== undefined ? { alarms: { types: ['BUSINESS' as const, 'FAILED' as const, 'RETRYING' as const], silenceMs: batch.alarmSilenceMs } } : {}),
    })),
  );
  const now = Date.now();
  const rows: Array<Partial<RunEntity>> = batch.dueAt.map((due, i) => ({
    tenantId: c.tenant.id,
    taskId: taskIds[i % taskCount],
    engineGroup: c.tenant.engineGroup,
    state: 'PENDING',
    cause: 'SCHEDULE',
    fireKey: `f:${due}:${i}`,
    attempt: 1,
    priority: 0,
    params: batch.params ? (batch.params(i) as never) : null,
    scheduledAt: due,
    dueAt: due,
    createdAt: now,
    updatedAt: now,
  }));
  for (let i = 0; i < rows.length; i += 1000) await c.ds.getRepository(RunEntity).insert(rows.slice(i, i + 1000));
  const ids: Array<{ id: number | string }> = await c.ds.query('SELECT id FROM runs WHERE tenant_id = ? ORDER BY id', [c.tenant.id]);
  return ids.map((r) => Number(r.id));
}

/** `n` due instants from `from`, evenly spread over `spanMs` (0: all at once). */
export function dueTimes(n: number, from: number, spanMs = 0): number[] {
  return Array.from({ length: n }, (_, i) => from + Math.floor((i * spanMs) / n));
}

/**
 * Waits until the tenant's runs are all terminal, or nothing ended for `stallMs`, or `timeoutMs`
 * passed. Query errors (the database restarting) count as "nothing moved" and are retried.
 */
export async function waitAllEnded(
  c: Cluster,
  n: number,
  options: { timeoutMs: number; stallMs: number; log?: (s: string) => void; onPoll?: () => void },
): Promise<{ ended: number; complete: boolean }> {
  const deadline = Date.now() + options.timeoutMs;
  let ended = -1;
  let movedAt = Date.now();
  for (;;) {
    const rows: Array<{ ended: number | string | null }> | null = await c.ds
      .query("SELECT SUM(state IN ('SUCCEEDED','FAILED','TIMED_OUT','CANCELLED','SKIPPED')) AS ended FROM runs WHERE tenant_id = ?", [c.tenant.id])
      .catch(() => null);
    options.onPoll?.();
    if (rows) {
      const now = Number(rows[0].ended ?? 0);
      if (now >= n) return { ended: now, complete: true };
      if (now !== ended) {
        ended = now;
        movedAt = Date.now();
      }
    }
    if (Date.now() > deadline || Date.now() - movedAt > options.stallMs) {
      options.log?.(`  gave up waiting: ${ended}/${n} runs ended`);
      return { ended, complete: false };
    }
    await sleep(250);
  }
}

/**
 * Lost, duplicated and re-run runs, from the run rows and the executors' records.
 * `completed(record)` says whether that invocation's handler ran to its end (default: every
 * invocation did — right for instant handlers such as `noop`).
 */
export function tally(
  runs: readonly RunEntity[],
  records: readonly InvocationRecord[],
  completed: (r: InvocationRecord) => boolean = () => true,
): { lost: number[]; duplicated: number[]; reRuns: number[]; states: Record<string, number>; invocations: number } {
  const perRun = new Map<number, InvocationRecord[]>();
  for (const r of records) perRun.set(r.runId, [...(perRun.get(r.runId) ?? []), r]);
  const lost: number[] = [];
  const duplicated: number[] = [];
  const reRuns: number[] = [];
  for (const run of runs) {
    const list = perRun.get(run.id) ?? [];
    if (!isTerminal(run.state as RunState)) lost.push(run.id);
    const attempts = new Set(list.map((r) => r.attempt));
    if (list.filter(completed).length > 1 || attempts.size < list.length) duplicated.push(run.id);
    else if (list.length > 1) reRuns.push(run.id);
  }
  return { lost, duplicated, reRuns, states: countBy(runs, (r) => r.state), invocations: records.length };
}

/**
 * After the wait: the runs, the records and their tally; the runs never ended are described in
 * the log (row, invocations, what their executor says), times relative to `t0` (the fault).
 */
export async function settle(c: Cluster, t0: number, log: (s: string) => void, completed?: (r: InvocationRecord) => boolean) {
  await sleep(500); // the last record lines reach the files
  const runs = await c.runs();
  const records = c.records();
  const t = tally(runs, records, completed);
  if (t.lost.length) log(await describeStuckRuns(c, runs, t0));
  return { runs, records, t };
}

/** The latest updated_at among ended runs (when the last one ended). */
export function lastEnd(runs: readonly RunEntity[]): number {
  return Math.max(...runs.filter((r) => r.finishedAt !== null || isTerminal(r.state as RunState)).map((r) => r.updatedAt));
}

/** A result from the tally and the timings. */
export function faultResult(
  fault: string,
  config: FaultResult['config'],
  runs: readonly RunEntity[],
  t: ReturnType<typeof tally>,
  timing: { takeoverMs?: number | null; recoveryMs: number },
  figures: Record<string, unknown>,
): FaultResult {
  return {
    fault,
    config,
    runs: runs.length,
    lost: t.lost.length,
    duplicated: t.duplicated.length,
    reRuns: t.reRuns.length,
    states: t.states,
    takeoverMs: timing.takeoverMs ?? null,
    recoveryMs: timing.recoveryMs,
    figures: { invocations: t.invocations, ...figures },
    lostRunIds: t.lost.slice(0, 50),
    duplicatedRunIds: t.duplicated.slice(0, 50),
  };
}
