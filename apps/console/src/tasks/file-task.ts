import type { TaskDefinition } from '@baton/domain';

/**
 * A task as the file has it: its whole definition but the tenant, `importedFrom` only when it has
 * one (a task not imported reads as it did before the field was, its managed hash unchanged).
 */
export type FileTask = Omit<TaskDefinition, 'tenantId' | 'importedFrom'> & { importedFrom?: string };

/** The definition of a file's task for the tenant. */
export function definitionOf(task: FileTask, tenantId: string): TaskDefinition {
  return { ...task, importedFrom: task.importedFrom ?? null, tenantId };
}

/** The file's form of a task definition: the definition's keys in their one order, the tenant left out. */
export function fileTask(definition: TaskDefinition): FileTask {
  return {
    name: definition.name,
    group: definition.group,
    executorApp: definition.executorApp,
    handler: definition.handler,
    params: definition.params,
    trigger: definition.trigger,
    startAt: definition.startAt,
    endAt: definition.endAt,
    maxFires: definition.maxFires,
    misfirePolicy: definition.misfirePolicy,
    misfireThresholdMs: definition.misfireThresholdMs,
    priority: definition.priority,
    concurrencyPolicy: definition.concurrencyPolicy,
    timeoutMs: definition.timeoutMs,
    startDeadlineMs: definition.startDeadlineMs,
    onStartLate: definition.onStartLate,
    retry: { maxAttempts: definition.retry.maxAttempts, backoffBaseMs: definition.retry.backoffBaseMs, backoffMaxMs: definition.retry.backoffMaxMs, jitter: definition.retry.jitter },
    calendarName: definition.calendarName,
    alarms: { types: definition.alarms.types, silenceMs: definition.alarms.silenceMs },
    paused: definition.paused,
    pauseAfterFailures: definition.pauseAfterFailures,
    fanOut: { mode: definition.fanOut.mode, shards: definition.fanOut.shards, failWhen: definition.fanOut.failWhen },
    concurrency: definition.concurrency && { key: definition.concurrency.key, limit: definition.concurrency.limit, onLimit: definition.concurrency.onLimit, ...groupOf(definition.concurrency) },
    rateLimit: definition.rateLimit && { key: definition.rateLimit.key, perSecond: definition.rateLimit.perSecond, burst: definition.rateLimit.burst, ...groupOf(definition.rateLimit) },
    debounce: definition.debounce && { key: definition.debounce.key, quietMs: definition.debounce.quietMs, maxWaitMs: definition.debounce.maxWaitMs },
    throttle: definition.throttle && { key: definition.throttle.key, limit: definition.throttle.limit, periodMs: definition.throttle.periodMs, keep: definition.throttle.keep },
    ...(definition.importedFrom === null ? {} : { importedFrom: definition.importedFrom }),
  };
}

/** A key bound's `group`, written only when it has one: a bound in no group reads as it did before groups were. */
function groupOf(bound: { group?: string }): { group?: string } {
  return bound.group === undefined ? {} : { group: bound.group };
}
