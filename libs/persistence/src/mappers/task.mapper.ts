import { canonicalCronTrigger, type EventFilter, type EventProjection, type KeyConcurrency, type KeyDebounce, type KeyRateLimit, type KeyThrottle, type RepeatedTimePolicy, type SkippedTimePolicy, type TaskDefinition, type Trigger } from '@baton/domain';
import type { TaskEntity } from '../entities';
import type { StoredJson } from '../entities/columns';

/** The trigger spread over the task table's typed columns. */
export interface TriggerColumns {
  triggerKind: Trigger['kind'];
  cronExpression: string | null;
  timeZone: string | null;
  /** CRON only; null: the default policy (a default is stored as null, canonicalCronTrigger). */
  cronRepeatedTime: RepeatedTimePolicy | null;
  cronSkippedTime: SkippedTimePolicy | null;
  intervalMs: number | null;
  onceAt: number | null;
  /** EVENT only (optional: rows read for the planner, never EVENT, leave them out). */
  eventName?: string | null;
  /** EVENT only: an EventFilter (StoredJson, as TypeORM types JSON columns). */
  eventFilter?: StoredJson;
  /** EVENT only: an EventProjection, or null for the whole payload. */
  eventParams?: StoredJson;
}

export function triggerToColumns(trigger: Trigger): TriggerColumns {
  const none = { cronExpression: null, timeZone: null, cronRepeatedTime: null, cronSkippedTime: null, intervalMs: null, onceAt: null, eventName: null, eventFilter: null, eventParams: null };
  switch (trigger.kind) {
    case 'MANUAL':
      return { triggerKind: 'MANUAL', ...none };
    case 'FIXED_RATE':
      return { triggerKind: 'FIXED_RATE', ...none, intervalMs: trigger.intervalMs };
    case 'FIXED_DELAY':
      return { triggerKind: 'FIXED_DELAY', ...none, intervalMs: trigger.delayMs };
    case 'CRON': {
      const { repeatedTime, skippedTime } = canonicalCronTrigger(trigger);
      return { triggerKind: 'CRON', ...none, cronExpression: trigger.expression, timeZone: trigger.timeZone, cronRepeatedTime: repeatedTime ?? null, cronSkippedTime: skippedTime ?? null };
    }
    case 'ONCE':
      return { triggerKind: 'ONCE', ...none, onceAt: trigger.at };
    case 'EVENT':
      return { triggerKind: 'EVENT', ...none, eventName: trigger.event, eventFilter: trigger.filter, eventParams: trigger.params };
  }
}

/** Reads the trigger back from its columns. A row whose columns do not fit its kind is corrupt: it throws. */
export function triggerFromColumns(row: TriggerColumns): Trigger {
  const need = <T>(value: T | null, column: string): T => {
    if (value === null || value === undefined) throw new Error(`task row with trigger ${row.triggerKind} lacks ${column}`);
    return value;
  };
  switch (row.triggerKind) {
    case 'MANUAL':
      return { kind: 'MANUAL' };
    case 'FIXED_RATE':
      return { kind: 'FIXED_RATE', intervalMs: need(row.intervalMs, 'interval_ms') };
    case 'FIXED_DELAY':
      return { kind: 'FIXED_DELAY', delayMs: need(row.intervalMs, 'interval_ms') };
    case 'CRON':
      return canonicalCronTrigger({ kind: 'CRON', expression: need(row.cronExpression, 'cron_expression'), timeZone: need(row.timeZone, 'time_zone'), repeatedTime: row.cronRepeatedTime ?? undefined, skippedTime: row.cronSkippedTime ?? undefined });
    case 'ONCE':
      return { kind: 'ONCE', at: need(row.onceAt, 'once_at') };
    case 'EVENT':
      return { kind: 'EVENT', event: need(row.eventName ?? null, 'event_name'), filter: (row.eventFilter as EventFilter | null) ?? {}, params: (row.eventParams as EventProjection | null) ?? null };
    default:
      throw new Error(`unknown trigger kind ${String(row.triggerKind)}`);
  }
}

/**
 * A task row as the domain's TaskDefinition. The row keeps the calendar by id; the caller
 * supplies its name (null when the task has none).
 */
export function taskEntityToDefinition(entity: TaskEntity, calendarName: string | null): TaskDefinition {
  return {
    tenantId: entity.tenantId,
    name: entity.name,
    group: entity.groupName,
    executorApp: entity.executorApp,
    handler: entity.handler,
    params: entity.params,
    trigger: triggerFromColumns(entity),
    startAt: entity.startAt,
    endAt: entity.endAt,
    maxFires: entity.maxFires,
    misfirePolicy: entity.misfirePolicy,
    misfireThresholdMs: entity.misfireThresholdMs,
    priority: entity.priority,
    concurrencyPolicy: entity.concurrencyPolicy,
    timeoutMs: entity.timeoutMs,
    startDeadlineMs: entity.startDeadlineMs,
    onStartLate: entity.onStartLate,
    retry: {
      maxAttempts: entity.retryMaxAttempts,
      backoffBaseMs: entity.retryBackoffBaseMs,
      backoffMaxMs: entity.retryBackoffMaxMs,
      jitter: entity.retryJitterPermille / 1000,
    },
    calendarName,
    alarms: { types: entity.alarmTypes, silenceMs: entity.alarmSilenceMs },
    paused: entity.paused,
    pauseAfterFailures: entity.pauseAfterFailures,
    fanOut: { mode: entity.fanOutMode, shards: entity.fanOutShards, failWhen: entity.fanOutFailWhen },
    concurrency: (entity.keyConcurrency as KeyConcurrency | null) ?? null,
    rateLimit: (entity.keyRate as KeyRateLimit | null) ?? null,
    debounce: (entity.keyDebounce as KeyDebounce | null) ?? null,
    throttle: (entity.keyThrottle as KeyThrottle | null) ?? null,
    importedFrom: entity.importedFrom,
  };
}

/** The columns a TaskDefinition decides (everything but ids, bookkeeping and planner state). */
export type TaskDefinitionColumns = Pick<
  TaskEntity,
  | 'tenantId'
  | 'name'
  | 'groupName'
  | 'executorApp'
  | 'handler'
  | 'params'
  | 'startAt'
  | 'endAt'
  | 'maxFires'
  | 'misfirePolicy'
  | 'misfireThresholdMs'
  | 'priority'
  | 'concurrencyPolicy'
  | 'timeoutMs'
  | 'startDeadlineMs'
  | 'onStartLate'
  | 'retryMaxAttempts'
  | 'retryBackoffBaseMs'
  | 'retryBackoffMaxMs'
  | 'retryJitterPermille'
  | 'calendarId'
  | 'alarmTypes'
  | 'alarmSilenceMs'
  | 'paused'
  | 'pauseAfterFailures'
  | 'fanOutMode'
  | 'fanOutShards'
  | 'fanOutFailWhen'
  | 'keyConcurrency'
  | 'keyRate'
  | 'keyDebounce'
  | 'keyThrottle'
  | 'importedFrom'
> &
  TriggerColumns;

/**
 * The columns of a TaskDefinition. The definition names its calendar; the caller resolves it
 * to `calendarId` (null for none). Jitter is kept in thousandths.
 */
export function taskDefinitionToColumns(definition: TaskDefinition, calendarId: number | null): TaskDefinitionColumns {
  return {
    tenantId: definition.tenantId,
    name: definition.name,
    groupName: definition.group,
    executorApp: definition.executorApp,
    handler: definition.handler,
    params: definition.params,
    ...triggerToColumns(definition.trigger),
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
    retryMaxAttempts: definition.retry.maxAttempts,
    retryBackoffBaseMs: definition.retry.backoffBaseMs,
    retryBackoffMaxMs: definition.retry.backoffMaxMs,
    retryJitterPermille: Math.round(definition.retry.jitter * 1000),
    calendarId,
    alarmTypes: definition.alarms.types,
    alarmSilenceMs: definition.alarms.silenceMs,
    paused: definition.paused,
    pauseAfterFailures: definition.pauseAfterFailures,
    fanOutMode: definition.fanOut.mode,
    fanOutShards: definition.fanOut.shards,
    fanOutFailWhen: definition.fanOut.failWhen,
    keyConcurrency: definition.concurrency,
    keyRate: definition.rateLimit,
    keyDebounce: definition.debounce,
    keyThrottle: definition.throttle,
    importedFrom: definition.importedFrom,
  };
}
