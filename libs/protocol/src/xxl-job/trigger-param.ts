import type { ConcurrencyPolicy } from '@baton/domain';
import type { DispatchRequest } from '../messages';
import { xxlLogIdOf } from './log-id';
import type { XxlBlockStrategy, XxlTriggerParam } from './messages';

/**
 * The XXL-JOB trigger of a run Baton sends at its instant (XXL-JOB has no "start later": it is
 * never sent ahead). `jobId` is the task (the executor keeps one job thread per job, which block
 * strategies and kill act on); `logId` the attempt (log-id.ts); `logDateTime` its fire time;
 * `executorTimeout` the seconds left to the run's deadline, rounded up, plus one: Baton's watchdog
 * ends the run at its deadline (TIMED_OUT, TIMEOUT alarm) and sends `kill`; the executor's own
 * timeout (a 502 callback) a second later is the backstop for a kill that did not arrive. A
 * shard's index and total are the broadcast's.
 * Params: a string as it is, none (null, or `{}`: a task's default, no params) as "" — what
 * XXL-JOB's admin passes for an empty parameter —, other JSON as its text.
 */
export function xxlTriggerOf(request: DispatchRequest, blockStrategy: XxlBlockStrategy, now: number): XxlTriggerParam {
  return {
    jobId: request.taskId,
    executorHandler: request.handler,
    executorParams: paramsText(request.params),
    executorBlockStrategy: blockStrategy,
    executorTimeout: Math.max(0, Math.ceil((request.deadline - now) / 1000)) + 1,
    logId: xxlLogIdOf(request.runId, request.attempt),
    logDateTime: request.scheduledAt,
    glueType: 'BEAN',
    glueSource: '',
    glueUpdatetime: 0,
    broadcastIndex: request.shardIndex ?? 0,
    broadcastTotal: request.shardTotal ?? 1,
  };
}

function paramsText(params: DispatchRequest['params']): string {
  if (params === null || params === undefined || isEmptyObject(params)) return '';
  return typeof params === 'string' ? params : JSON.stringify(params);
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}

/**
 * The executor-side block strategy of a task's concurrency policy. Baton applies the policy
 * before it sends (FORBID skips a fire while one runs, REPLACE ends the running one); the
 * executor's own strategy keeps that true on its job thread: ALLOW queues behind the running
 * trigger (an XXL-JOB executor never runs one job twice at once), FORBID discards, REPLACE covers.
 */
export function xxlBlockStrategyOf(policy: ConcurrencyPolicy): XxlBlockStrategy {
  return policy === 'FORBID' ? 'DISCARD_LATER' : policy === 'REPLACE' ? 'COVER_EARLY' : 'SERIAL_EXECUTION';
}
