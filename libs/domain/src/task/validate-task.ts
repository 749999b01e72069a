import { ALARM_TYPES, CONCURRENCY_POLICIES, FAN_OUT_FAIL_WHEN, FAN_OUT_MODES, MISFIRE_POLICIES, REPEATED_TIME_POLICIES, SKIPPED_TIME_POLICIES, START_LATE_POLICIES, TRIGGER_KINDS } from '../types';
import type { TaskDefinition } from '../types';
import type { FieldError } from '../validation/field-error';
import { INSTANT_REASON, integerInRange, isMillis, isPlainObject, MAX_INT32, MAX_INTERVAL_MS } from '../validation/field-error';
import { displayNameProblem, nameProblem, requiredTextProblem } from '../validation/names';
import { isValidTimeZone } from '../time/time-zone';
import { parseCron } from '../trigger/cron';
import { paramsProblem } from './json-params';
import { eventTriggerProblems } from '../event/validate-event';
import { keyConcurrencyProblems, keyRateLimitProblems } from '../key/validate-keys';
import { windowsProblems } from '../window/validate-windows';
import { taskDefaults } from './task-defaults';

/**
 * Shortest FIXED_RATE interval / FIXED_DELAY delay. Baton fires to the millisecond, but every
 * fire is a run row, an HTTP call and a callback: ten per second per task is already a lot of
 * rows, and anything faster belongs inside the handler, not in the scheduler.
 */
export const MIN_INTERVAL_MS = 100;
export const MIN_TIMEOUT_MS = 1_000;
export const PRIORITY_MIN = -100;
export const PRIORITY_MAX = 100;
export const MAX_RETRY_ATTEMPTS = 100;
/** Most consecutive failures a task may wait for before pausing itself. */
export const MAX_PAUSE_AFTER_FAILURES = 1000;
/**
 * Most shards of one SHARDED fire. Every shard is a run row, a dispatch and a callback, and its
 * fan-out run reads them all when they end; past a thousand the work wants a queue of its own.
 */
export const MAX_SHARDS = 1000;
/** Matches the varchar(100) handler column. */
export const MAX_HANDLER_LENGTH = 100;
/** Matches the varchar(1000) imported_from column: a Quartz trigger's scheduler, group and name are up to 120 + 190 + 190 characters. */
export const MAX_IMPORTED_FROM_LENGTH = 1000;

const TASK_FIELDS = new Set<keyof TaskDefinition>([
  'tenantId', // set by the console from the caller's credentials; accepted but not checked here
  'name',
  'group',
  'executorApp',
  'handler',
  'params',
  'trigger',
  'startAt',
  'endAt',
  'maxFires',
  'misfirePolicy',
  'misfireThresholdMs',
  'priority',
  'concurrencyPolicy',
  'timeoutMs',
  'startDeadlineMs',
  'onStartLate',
  'retry',
  'calendarName',
  'alarms',
  'paused',
  'pauseAfterFailures',
  'fanOut',
  'concurrency',
  'rateLimit',
  'debounce',
  'throttle',
  'importedFrom',
]);

const TRIGGER_FIELDS: Record<string, readonly string[]> = {
  MANUAL: ['kind'],
  FIXED_RATE: ['kind', 'intervalMs'],
  FIXED_DELAY: ['kind', 'delayMs'],
  CRON: ['kind', 'expression', 'timeZone', 'repeatedTime', 'skippedTime'],
  ONCE: ['kind', 'at'],
  EVENT: ['kind', 'event', 'filter', 'params'],
};

/**
 * Checks a task definition input and lists every problem (empty = valid), so the console can
 * answer 400 naming each field and reason at once. `name`, `executorApp`, `handler` and
 * `trigger` are required; other fields may be omitted (they get taskDefaults()), and `retry` /
 * `alarms` may be given in part. Fields the task does not have are refused, so a misspelt
 * field is an error instead of a silently ignored setting. To validate an edit, validate the
 * stored task merged with the change.
 */
export function validateTask(input: unknown): FieldError[] {
  if (!isPlainObject(input)) return [{ field: '', reason: 'must be a JSON object' }];
  const errors: FieldError[] = [];
  const add = (field: string, reason: string | null) => {
    if (reason !== null) errors.push({ field, reason });
  };
  const present = (key: string) => input[key] !== undefined;

  for (const key of Object.keys(input)) {
    if (!TASK_FIELDS.has(key as keyof TaskDefinition)) add(key, 'is not a task field');
  }

  add('name', nameProblem(input.name));
  add('executorApp', nameProblem(input.executorApp));
  add('handler', handlerProblem(input.handler));
  if (present('group')) add('group', nameProblem(input.group));
  if (present('calendarName') && input.calendarName !== null) add('calendarName', nameProblem(input.calendarName));
  if (present('params')) {
    const problem = paramsProblem(input.params);
    if (problem) errors.push(problem);
  }

  validateTimeBounds(input, add);
  validateTrigger(input.trigger, input, add);

  if (present('maxFires') && input.maxFires !== null) add('maxFires', integerInRange(input.maxFires, 1, MAX_INT32));
  if (present('misfirePolicy')) add('misfirePolicy', oneOf(input.misfirePolicy, MISFIRE_POLICIES));
  if (present('misfireThresholdMs')) add('misfireThresholdMs', integerInRange(input.misfireThresholdMs, 0, MAX_INT32));
  if (present('priority')) add('priority', integerInRange(input.priority, PRIORITY_MIN, PRIORITY_MAX));
  if (present('concurrencyPolicy')) add('concurrencyPolicy', oneOf(input.concurrencyPolicy, CONCURRENCY_POLICIES));
  if (present('timeoutMs')) add('timeoutMs', integerInRange(input.timeoutMs, MIN_TIMEOUT_MS, MAX_INT32));
  if (present('startDeadlineMs')) add('startDeadlineMs', integerInRange(input.startDeadlineMs, 0, MAX_INT32));
  if (present('onStartLate')) add('onStartLate', oneOf(input.onStartLate, START_LATE_POLICIES));
  if (present('paused') && typeof input.paused !== 'boolean') add('paused', 'must be true or false');
  if (present('pauseAfterFailures') && input.pauseAfterFailures !== null) add('pauseAfterFailures', integerInRange(input.pauseAfterFailures, 1, MAX_PAUSE_AFTER_FAILURES));
  if (present('importedFrom') && input.importedFrom !== null) add('importedFrom', displayNameProblem(input.importedFrom, MAX_IMPORTED_FROM_LENGTH));
  if (present('retry')) validateRetry(input.retry, add);
  if (present('alarms')) validateAlarms(input.alarms, add);
  if (present('fanOut')) validateFanOut(input.fanOut, add);
  if (present('concurrency')) errors.push(...keyConcurrencyProblems(input.concurrency));
  if (present('rateLimit')) errors.push(...keyRateLimitProblems(input.rateLimit));
  errors.push(...windowsProblems(present('debounce') ? input.debounce : undefined, present('throttle') ? input.throttle : undefined));
  return errors;
}

type Add = (field: string, reason: string | null) => void;

function handlerProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0) return requiredTextProblem(value);
  if (value.length > MAX_HANDLER_LENGTH) return `must be at most ${MAX_HANDLER_LENGTH} characters`;
  // Handlers are looked up by exact name in another process; invisible differences would be cruel.
  if (!/^[\x21-\x7e]+$/.test(value)) return 'may contain only printable ASCII without spaces';
  return null;
}

function oneOf(value: unknown, allowed: readonly string[]): string | null {
  return typeof value === 'string' && allowed.includes(value) ? null : `must be one of ${allowed.join(', ')}`;
}

function unknownKeys(value: Record<string, unknown>, allowed: readonly string[], prefix: string, what: string, add: Add) {
  for (const key of Object.keys(value)) if (!allowed.includes(key)) add(`${prefix}.${key}`, `is not a field of ${what}`);
}

function validateTimeBounds(input: Record<string, unknown>, add: Add) {
  const { startAt, endAt } = input;
  const instant = `${INSTANT_REASON}, or null`;
  if (startAt !== undefined && startAt !== null && !isMillis(startAt)) add('startAt', instant);
  if (endAt !== undefined && endAt !== null && !isMillis(endAt)) add('endAt', instant);
  if (isMillis(startAt) && isMillis(endAt) && endAt <= startAt) add('endAt', 'must be after startAt');
}

function validateTrigger(trigger: unknown, input: Record<string, unknown>, add: Add) {
  if (trigger === undefined) return add('trigger', 'is required');
  if (!isPlainObject(trigger)) return add('trigger', 'must be an object with a kind');
  const kind = trigger.kind;
  if (typeof kind !== 'string' || !(TRIGGER_KINDS as readonly string[]).includes(kind)) {
    return add('trigger.kind', `must be one of ${TRIGGER_KINDS.join(', ')}`);
  }
  unknownKeys(trigger, TRIGGER_FIELDS[kind], 'trigger', `a ${kind} trigger`, add);
  switch (kind) {
    case 'EVENT':
      for (const e of eventTriggerProblems(trigger)) add(e.field, e.reason);
      return;
    case 'FIXED_RATE':
      return add('trigger.intervalMs', integerInRange(trigger.intervalMs, MIN_INTERVAL_MS, MAX_INTERVAL_MS));
    case 'FIXED_DELAY':
      return add('trigger.delayMs', integerInRange(trigger.delayMs, MIN_INTERVAL_MS, MAX_INTERVAL_MS));
    case 'CRON': {
      // Zone and expression are checked apart, so that both problems are reported at once.
      const zoneOk = isValidTimeZone(trigger.timeZone);
      if (!zoneOk) add('trigger.timeZone', trigger.timeZone === undefined || trigger.timeZone === null ? 'is required: an IANA time zone such as Europe/Berlin (or UTC)' : 'must be a known IANA time zone such as Europe/Berlin');
      const parsed = parseCron(trigger.expression, zoneOk ? trigger.timeZone : 'UTC');
      if (!parsed.ok) add('trigger.expression', parsed.reason);
      if (trigger.repeatedTime !== undefined) add('trigger.repeatedTime', oneOf(trigger.repeatedTime, REPEATED_TIME_POLICIES));
      if (trigger.skippedTime !== undefined) add('trigger.skippedTime', oneOf(trigger.skippedTime, SKIPPED_TIME_POLICIES));
      return;
    }
    case 'ONCE': {
      const at = trigger.at;
      if (!isMillis(at)) return add('trigger.at', INSTANT_REASON);
      // A one-shot outside its own window would be a task that can never fire.
      if (isMillis(input.startAt) && at < input.startAt) add('trigger.at', 'is before startAt, so the task would never fire');
      if (isMillis(input.endAt) && at > input.endAt) add('trigger.at', 'is after endAt, so the task would never fire');
      return;
    }
  }
}

function validateRetry(retry: unknown, add: Add) {
  if (!isPlainObject(retry)) return add('retry', 'must be an object');
  const defaults = taskDefaults().retry;
  unknownKeys(retry, Object.keys(defaults), 'retry', 'a retry policy', add);
  const merged: Record<string, unknown> = { ...defaults, ...retry };
  add('retry.maxAttempts', integerInRange(merged.maxAttempts, 1, MAX_RETRY_ATTEMPTS));
  const baseProblem = integerInRange(merged.backoffBaseMs, 0, MAX_INT32);
  add('retry.backoffBaseMs', baseProblem);
  const maxProblem = integerInRange(merged.backoffMaxMs, 0, MAX_INT32);
  add('retry.backoffMaxMs', maxProblem);
  if (baseProblem === null && maxProblem === null && (merged.backoffMaxMs as number) < (merged.backoffBaseMs as number)) {
    add('retry.backoffMaxMs', `must be at least retry.backoffBaseMs (${merged.backoffBaseMs})`);
  }
  const jitter = merged.jitter;
  if (typeof jitter !== 'number' || !Number.isFinite(jitter) || jitter < 0 || jitter > 1) {
    add('retry.jitter', 'must be a number from 0 to 1');
  }
}

function validateFanOut(fanOut: unknown, add: Add) {
  if (!isPlainObject(fanOut)) return add('fanOut', 'must be an object with a mode');
  const defaults = taskDefaults().fanOut;
  unknownKeys(fanOut, Object.keys(defaults), 'fanOut', 'the fan-out settings', add);
  const merged: Record<string, unknown> = { ...defaults, ...fanOut };
  const modeProblem = oneOf(merged.mode, FAN_OUT_MODES);
  add('fanOut.mode', modeProblem);
  add('fanOut.failWhen', oneOf(merged.failWhen, FAN_OUT_FAIL_WHEN));
  if (modeProblem !== null) return;
  if (merged.mode === 'SHARDED') add('fanOut.shards', merged.shards === null ? `is required for mode SHARDED (1–${MAX_SHARDS})` : integerInRange(merged.shards, 1, MAX_SHARDS));
  else if (merged.shards !== null) add('fanOut.shards', `is only for mode SHARDED (${merged.mode === 'BROADCAST' ? 'a broadcast has one shard per UP executor' : 'use null'})`);
}

function validateAlarms(alarms: unknown, add: Add) {
  if (!isPlainObject(alarms)) return add('alarms', 'must be an object');
  unknownKeys(alarms, ['types', 'silenceMs'], 'alarms', 'the alarm settings', add);
  if (alarms.types !== undefined) {
    if (!Array.isArray(alarms.types)) add('alarms.types', 'must be an array of alarm types');
    else {
      const seen = new Set<unknown>();
      alarms.types.forEach((type, i) => {
        if (seen.has(type)) add(`alarms.types[${i}]`, 'is listed twice');
        else add(`alarms.types[${i}]`, oneOf(type, ALARM_TYPES));
        seen.add(type);
      });
    }
  }
  if (alarms.silenceMs !== undefined) add('alarms.silenceMs', integerInRange(alarms.silenceMs, 0, MAX_INT32));
}
