import { ALARM_TYPES } from '../types';
import type { TaskDefinition, Trigger } from '../types';
import { defaultDebounceWait } from '../window/validate-windows';

/** The fields a task input may omit; the rest (name, executorApp, handler, trigger) are required. */
export type DefaultedTaskFields = Omit<TaskDefinition, 'tenantId' | 'name' | 'executorApp' | 'handler' | 'trigger'>;

/**
 * The documented defaults (see the doc comments in types.ts), as fresh objects on every call so
 * a caller may change them freely.
 */
export function taskDefaults(): DefaultedTaskFields {
  return {
    group: 'default',
    params: {},
    startAt: null,
    endAt: null,
    maxFires: null,
    misfirePolicy: 'FIRE_ONCE_NOW',
    misfireThresholdMs: 5_000,
    priority: 0,
    concurrencyPolicy: 'ALLOW',
    timeoutMs: 300_000,
    startDeadlineMs: 10_000,
    onStartLate: 'ALARM',
    retry: { maxAttempts: 1, backoffBaseMs: 1_000, backoffMaxMs: 60_000, jitter: 0.2 },
    calendarName: null,
    alarms: { types: [...ALARM_TYPES], silenceMs: 60_000 },
    paused: false,
    pauseAfterFailures: null,
    concurrency: null,
    rateLimit: null,
    debounce: null,
    throttle: null,
    fanOut: { mode: 'SINGLE', shards: null, failWhen: 'ANY_SHARD_FAILS' },
    importedFrom: null,
  };
}

/** What the console receives: any subset of a task's fields, values not yet checked. */
export type TaskInput = { [K in keyof TaskDefinition]?: unknown };

/**
 * A full definition from a *validated* input (validateTask returned no errors): omitted fields
 * take their defaults, and so do omitted members of `retry` and `alarms`, which may be given
 * in part (`retry: { maxAttempts: 3 }`). An EVENT trigger's `filter` defaults to `{}` (every
 * payload) and its `params` to null (the whole payload).
 */
export function withTaskDefaults(input: TaskInput, tenantId: string): TaskDefinition {
  const defaults = taskDefaults();
  const given = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<TaskDefinition>;
  return {
    ...defaults,
    ...given,
    tenantId,
    trigger: withTriggerDefaults(given.trigger as Trigger),
    retry: { ...defaults.retry, ...(given.retry ?? {}) },
    alarms: { ...defaults.alarms, ...(given.alarms ?? {}) },
    fanOut: { ...defaults.fanOut, ...(given.fanOut ?? {}) },
    concurrency: given.concurrency ? withoutNoGroup({ ...given.concurrency, onLimit: given.concurrency.onLimit ?? 'QUEUE' }) : null,
    rateLimit: given.rateLimit ? withoutNoGroup({ ...given.rateLimit, burst: given.rateLimit.burst ?? 1 }) : null,
    debounce: given.debounce ? { ...given.debounce, maxWaitMs: given.debounce.maxWaitMs ?? defaultDebounceWait(given.debounce.quietMs) } : null,
    throttle: given.throttle ? { ...given.throttle, keep: given.throttle.keep ?? 'LAST' } : null,
  } as TaskDefinition;
}

/** A key bound without its `group: null` (none): a bound in no group is stored, shown and exported as it was before groups were. */
function withoutNoGroup<B extends { group?: string | null }>(bound: B): B {
  const { group, ...rest } = bound;
  return group === null || group === undefined ? (rest as B) : bound;
}

function withTriggerDefaults(trigger: Trigger): Trigger {
  if (trigger?.kind !== 'EVENT') return trigger;
  return { kind: 'EVENT', event: trigger.event, filter: trigger.filter ?? {}, params: trigger.params ?? null };
}
