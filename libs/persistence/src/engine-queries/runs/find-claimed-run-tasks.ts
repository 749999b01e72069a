import type { EntityManager } from 'typeorm';
import type { AlarmType, ConcurrencyPolicy, FanOut, FanOutFailWhen, FanOutMode, KeyConcurrency, KeyRateLimit, RetryPolicy } from '@baton/domain';
import { execute, num, placeholders } from '../sql';
import { parseAlarmSilenceMs, parseAlarmTypes } from './run-attempt-row';

/** What dispatching a run needs from its task (ClaimedRun's task fields). */
export interface ClaimedRunTask {
  id: number;
  name: string;
  executorApp: string;
  handler: string;
  timeoutMs: number;
  startDeadlineMs: number;
  concurrencyPolicy: ConcurrencyPolicy;
  retry: RetryPolicy;
  fanOut: FanOut;
  /** Its concurrency bound per key (tasks.key_concurrency); null: none. */
  concurrency: KeyConcurrency | null;
  /** Its rate bound per key (tasks.key_rate); null: none. */
  rateLimit: KeyRateLimit | null;
  /** Which alarms it raises (tasks.alarm_types); null when unreadable — then every type. */
  alarmTypes: AlarmType[] | null;
  /** Its alarm silence window (tasks.alarm_silence_ms; 0: never). */
  alarmSilenceMs: number;
  /** It has children in the DAG: a run's end may start some (RunAttemptRow's followUps, read here with the claim). */
  hasChildren: boolean;
  /** Its trigger is FIXED_DELAY: a run's end schedules the next fire. */
  fixedDelay: boolean;
}

/**
 * The task fields of freshly claimed runs, by task id:
 *
 *   SELECT id, name, executor_app, handler, timeout_ms, … FROM tasks WHERE id IN (…)
 *
 * A plain (non-locking, MVCC) read after the claim, not a join inside it: the claim's
 * FOR UPDATE would otherwise lock — or SKIP — task rows the planner holds. Current task values
 * are what a dispatch should use (timeout, handler), except params, which the run snapshots.
 * A task missing from the result was deleted after its run was made.
 */
export async function findClaimedRunTasks(manager: EntityManager, taskIds: readonly number[]): Promise<Map<number, ClaimedRunTask>> {
  const unique = [...new Set(taskIds)];
  const out = new Map<number, ClaimedRunTask>();
  if (unique.length === 0) return out;
  const { rows } = await execute<Record<string, unknown>>(manager, `SELECT ${claimedRunTaskColumns()} FROM tasks WHERE id IN (${placeholders(unique.length)})`, unique);
  for (const r of rows) out.set(num(r.id), claimedRunTask(r));
  return out;
}

/**
 * The task columns a claimed run needs, each `AS <prefix><name>` when a join names them, and
 * whether the task has children (an index probe on uq_task_dependencies_edge, as RunAttemptRow
 * reads it): with them the engine ends the run from its callback without reading it again.
 */
export function claimedRunTaskColumns(table = '', prefix = ''): string {
  const t = table ? `${table}.` : '';
  const columns = TASK_COLUMNS.map((c) => (prefix ? `${t}${c} AS ${prefix}${c}` : `${t}${c}`));
  return [...columns, `EXISTS (SELECT 1 FROM task_dependencies d WHERE d.parent_task_id = ${table || 'tasks'}.id) AS ${prefix}has_children`].join(', ');
}

const TASK_COLUMNS = [
  'id', 'name', 'executor_app', 'handler', 'timeout_ms', 'start_deadline_ms', 'concurrency_policy',
  'retry_max_attempts', 'retry_backoff_base_ms', 'retry_backoff_max_ms', 'retry_jitter_permille',
  'fan_out_mode', 'fan_out_shards', 'fan_out_fail_when', 'key_concurrency', 'key_rate', 'alarm_types', 'alarm_silence_ms', 'trigger_kind',
] as const;

/**
 * Whether a new run of the task (a submission's: no key given yet, not a shard) goes out as it
 * is: nothing to decide at its claim — no key to admit it, no concurrency policy, no fan-out. Only
 * such a run may be written already sent (DirectStarts, apps/console/src/submissions).
 */
export function startsAsItIs(task: ClaimedRunTask): boolean {
  return task.concurrencyPolicy === 'ALLOW' && task.fanOut.mode === 'SINGLE' && task.concurrency === null && task.rateLimit === null;
}

/** A row of claimedRunTaskColumns(…, prefix) as a ClaimedRunTask. */
export function claimedRunTask(r: Record<string, unknown>, prefix = ''): ClaimedRunTask {
  const c = (name: (typeof TASK_COLUMNS)[number] | 'has_children') => r[prefix + name];
  return {
    id: num(c('id')),
    name: String(c('name')),
    executorApp: String(c('executor_app')),
    handler: String(c('handler')),
    timeoutMs: num(c('timeout_ms')),
    startDeadlineMs: num(c('start_deadline_ms')),
    concurrencyPolicy: c('concurrency_policy') as ConcurrencyPolicy,
    retry: {
      maxAttempts: num(c('retry_max_attempts')),
      backoffBaseMs: num(c('retry_backoff_base_ms')),
      backoffMaxMs: num(c('retry_backoff_max_ms')),
      jitter: num(c('retry_jitter_permille')) / 1000,
    },
    fanOut: { mode: c('fan_out_mode') as FanOutMode, shards: c('fan_out_shards') === null ? null : num(c('fan_out_shards')), failWhen: c('fan_out_fail_when') as FanOutFailWhen },
    concurrency: c('key_concurrency') === null || c('key_concurrency') === undefined ? null : (JSON.parse(String(c('key_concurrency'))) as KeyConcurrency),
    rateLimit: c('key_rate') === null || c('key_rate') === undefined ? null : (JSON.parse(String(c('key_rate'))) as KeyRateLimit),
    alarmTypes: parseAlarmTypes(c('alarm_types')),
    alarmSilenceMs: parseAlarmSilenceMs(c('alarm_silence_ms')),
    hasChildren: Number(c('has_children')) > 0,
    fixedDelay: c('trigger_kind') === 'FIXED_DELAY',
  };
}
