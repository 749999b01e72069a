import type { ClaimedRunRow, ClaimedRunTask } from '@baton/persistence';
import type { ClaimedRun } from '../common/claimed-run';

/** A claimed run row joined with its task's current fields: what the dispatch side needs, no further read. */
export function toClaimedRun(run: ClaimedRunRow, task: ClaimedRunTask): ClaimedRun {
  return {
    runId: run.id,
    tenantId: run.tenantId,
    taskId: run.taskId,
    taskName: task.name,
    engineGroup: run.engineGroup,
    attempt: run.attempt,
    priority: run.priority,
    params: run.params,
    parentResults: run.parentResults ?? null,
    flowParams: run.flowParams ?? null,
    scheduledAt: run.scheduledAt,
    dueAt: run.dueAt,
    instant: run.instantAt,
    lateFrom: run.lateFrom,
    leaseUntil: run.leaseUntil,
    flowId: run.flowId,
    executorApp: task.executorApp,
    handler: task.handler,
    timeoutMs: task.timeoutMs,
    startDeadlineMs: task.startDeadlineMs,
    concurrencyPolicy: task.concurrencyPolicy,
    retry: task.retry,
    fanOut: task.fanOut,
    shard: run.shard ?? null,
    executorId: run.executorId,
    traceParent: run.traceParent ?? null,
    cause: run.cause,
    alarmTypes: task.alarmTypes,
    alarmSilenceMs: task.alarmSilenceMs,
    // A shard's end is its fan-out run's business: the task's children and next fixed-delay fire follow that run's end.
    followUps: run.cause === 'SHARD' ? { children: false, fixedDelay: false } : { children: task.hasChildren, fixedDelay: task.fixedDelay },
    keyed: task.concurrency !== null || task.rateLimit !== null,
  };
}
