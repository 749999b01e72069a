import { displayTimeZone, fromLocalInput, parseDuration, toLocalInput } from '../../../shared/format';
import { t } from '../../../shared/i18n/i18n';
import type { Task, TriggerKind } from '../../../shared/model';

/** The form's values as typed (strings for numbers, so a wrong value reaches the API and is named). */
export interface Form {
  name: string;
  group: string;
  executorApp: string;
  handler: string;
  params: string;
  kind: TriggerKind;
  intervalMs: string;
  delayMs: string;
  expression: string;
  timeZone: string;
  /** CRON: the daylight-saving policies (the API's defaults: ONCE_LATER, SKIP). */
  repeatedTime: string;
  skippedTime: string;
  at: string;
  /** EVENT: the event's name, its filter and its params projection (JSON texts; an empty projection: the whole payload). */
  eventName: string;
  eventFilter: string;
  eventParams: string;
  startAt: string;
  endAt: string;
  maxFires: string;
  misfirePolicy: string;
  misfireThresholdMs: string;
  priority: string;
  concurrencyPolicy: string;
  timeoutMs: string;
  startDeadlineMs: string;
  onStartLate: string;
  maxAttempts: string;
  backoffBaseMs: string;
  backoffMaxMs: string;
  jitter: string;
  calendarName: string;
  alarmTypes: string[];
  silenceMs: string;
  paused: boolean;
  pauseAfterFailures: string;
  fanOutMode: string;
  fanOutShards: string;
  fanOutFailWhen: string;
  /** Bounds per key: an empty key is no bound. */
  concurrencyKey: string;
  concurrencyLimit: string;
  concurrencyOnLimit: string;
  /** The key group (empty: the task's own keys). */
  concurrencyGroup: string;
  rateKey: string;
  ratePerSecond: string;
  rateBurst: string;
  rateGroup: string;
  /** Debounce and throttle per key: an empty key is none. */
  debounceKey: string;
  debounceQuietMs: string;
  /** Empty: the default (10 × quietMs). */
  debounceMaxWaitMs: string;
  throttleKey: string;
  throttleLimit: string;
  throttlePeriodMs: string;
  throttleKeep: string;
  /** Not edited here: kept as the task has it (a save replaces the whole task), so an edit does not make an imported task look not imported. */
  importedFrom: string | null;
}


/** The API's names of the fields this editor shows: a reason on any other goes in the banner. */
export const TASK_FIELDS = [
  'name', 'group', 'executorApp', 'handler', 'params',
  'trigger', 'trigger.kind', 'trigger.intervalMs', 'trigger.delayMs', 'trigger.expression', 'trigger.timeZone', 'trigger.repeatedTime', 'trigger.skippedTime', 'trigger.at', 'trigger.event', 'trigger.filter', 'trigger.params',
  'startAt', 'endAt', 'maxFires', 'calendarName', 'misfirePolicy', 'misfireThresholdMs', 'concurrencyPolicy', 'priority', 'timeoutMs', 'startDeadlineMs', 'onStartLate',
  'retry', 'retry.maxAttempts', 'retry.backoffBaseMs', 'retry.backoffMaxMs', 'retry.jitter',
  'fanOut', 'fanOut.mode', 'fanOut.shards', 'fanOut.failWhen',
  'alarms', 'alarms.types', 'alarms.silenceMs', 'pauseAfterFailures',
  'concurrency', 'concurrency.key', 'concurrency.limit', 'concurrency.onLimit', 'concurrency.group', 'rateLimit', 'rateLimit.key', 'rateLimit.perSecond', 'rateLimit.burst', 'rateLimit.group',
  'debounce', 'debounce.key', 'debounce.quietMs', 'debounce.maxWaitMs', 'throttle', 'throttle.key', 'throttle.limit', 'throttle.periodMs', 'throttle.keep',
];

/** A new task's form (its time zone: the viewer's display zone, read when the form opens). */
export function emptyForm(): Form {
  return {
    name: '',
    group: 'default',
    executorApp: 'demo',
    handler: 'noop',
    params: '{}',
    kind: 'CRON',
    intervalMs: '60000',
    delayMs: '60000',
    expression: '0 */5 * * * *',
    timeZone: displayTimeZone(),
    repeatedTime: 'ONCE_LATER',
    skippedTime: 'SKIP',
    at: '',
    eventName: '',
    eventFilter: '{}',
    eventParams: '',
    startAt: '',
    endAt: '',
    maxFires: '',
    misfirePolicy: 'FIRE_ONCE_NOW',
    misfireThresholdMs: '5000',
    priority: '0',
    concurrencyPolicy: 'ALLOW',
    timeoutMs: '300000',
    startDeadlineMs: '10000',
    onStartLate: 'ALARM',
    maxAttempts: '1',
    backoffBaseMs: '1000',
    backoffMaxMs: '60000',
    jitter: '0.2',
    calendarName: '',
    alarmTypes: ['START_LATE', 'TIMEOUT', 'FAILED', 'EXECUTOR_DOWN', 'DISPATCH_REJECTED', 'TASK_PAUSED', 'BUSINESS'],
    silenceMs: '60000',
    paused: false,
    pauseAfterFailures: '',
    fanOutMode: 'SINGLE',
    fanOutShards: '4',
    fanOutFailWhen: 'ANY_SHARD_FAILS',
    concurrencyKey: '',
    concurrencyLimit: '1',
    concurrencyOnLimit: 'QUEUE',
    concurrencyGroup: '',
    rateKey: '',
    ratePerSecond: '1',
    rateBurst: '1',
    rateGroup: '',
    debounceKey: '',
    debounceQuietMs: '5000',
    debounceMaxWaitMs: '',
    throttleKey: '',
    throttleLimit: '1',
    throttlePeriodMs: '60000',
    throttleKeep: 'LAST',
    importedFrom: null,
  };
}

export function formOf(task: Task): Form {
  const s = (n: number | null | undefined) => (n === null || n === undefined ? '' : String(n));
  return {
    name: task.name,
    group: task.group,
    executorApp: task.executorApp,
    handler: task.handler,
    params: JSON.stringify(task.params ?? {}, null, 2),
    kind: task.trigger.kind,
    intervalMs: s(task.trigger.intervalMs) || emptyForm().intervalMs,
    delayMs: s(task.trigger.delayMs) || emptyForm().delayMs,
    expression: task.trigger.expression ?? emptyForm().expression,
    timeZone: task.trigger.timeZone ?? displayTimeZone(),
    repeatedTime: task.trigger.repeatedTime ?? emptyForm().repeatedTime,
    skippedTime: task.trigger.skippedTime ?? emptyForm().skippedTime,
    at: toLocalInput(task.trigger.at),
    eventName: task.trigger.event ?? '',
    eventFilter: JSON.stringify(task.trigger.filter ?? {}, null, 2),
    eventParams: task.trigger.params ? JSON.stringify(task.trigger.params, null, 2) : '',
    startAt: toLocalInput(task.startAt),
    endAt: toLocalInput(task.endAt),
    maxFires: s(task.maxFires),
    misfirePolicy: task.misfirePolicy,
    misfireThresholdMs: s(task.misfireThresholdMs),
    priority: s(task.priority),
    concurrencyPolicy: task.concurrencyPolicy,
    timeoutMs: s(task.timeoutMs),
    startDeadlineMs: s(task.startDeadlineMs),
    onStartLate: task.onStartLate,
    maxAttempts: s(task.retry.maxAttempts),
    backoffBaseMs: s(task.retry.backoffBaseMs),
    backoffMaxMs: s(task.retry.backoffMaxMs),
    jitter: s(task.retry.jitter),
    calendarName: task.calendarName ?? '',
    alarmTypes: task.alarms.types,
    silenceMs: s(task.alarms.silenceMs),
    paused: task.paused,
    pauseAfterFailures: s(task.pauseAfterFailures),
    fanOutMode: task.fanOut.mode,
    fanOutShards: s(task.fanOut.shards) || emptyForm().fanOutShards,
    fanOutFailWhen: task.fanOut.failWhen,
    concurrencyKey: task.concurrency?.key ?? '',
    concurrencyLimit: s(task.concurrency?.limit) || emptyForm().concurrencyLimit,
    concurrencyOnLimit: task.concurrency?.onLimit ?? 'QUEUE',
    concurrencyGroup: task.concurrency?.group ?? '',
    rateKey: task.rateLimit?.key ?? '',
    ratePerSecond: s(task.rateLimit?.perSecond) || emptyForm().ratePerSecond,
    rateBurst: s(task.rateLimit?.burst) || emptyForm().rateBurst,
    rateGroup: task.rateLimit?.group ?? '',
    debounceKey: task.debounce?.key ?? '',
    debounceQuietMs: s(task.debounce?.quietMs) || emptyForm().debounceQuietMs,
    debounceMaxWaitMs: s(task.debounce?.maxWaitMs),
    throttleKey: task.throttle?.key ?? '',
    throttleLimit: s(task.throttle?.limit) || emptyForm().throttleLimit,
    throttlePeriodMs: s(task.throttle?.periodMs) || emptyForm().throttlePeriodMs,
    throttleKeep: task.throttle?.keep ?? 'LAST',
    importedFrom: task.importedFrom ?? null,
  };
}

/** A number when it reads as one, else the text as typed (the API then names the field). */
export const num = (v: string): unknown => (v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v);
/** A duration field: milliseconds, or `30s`, `5m`, `1h`, `1.5s` (format.ts parseDuration); else the text as typed. */
const ms = (v: string): unknown => parseDuration(v) ?? v;
const optNum = (v: string): unknown => (v.trim() === '' ? null : num(v));

export function bodyOf(f: Form): { body: Record<string, unknown>; local: Record<string, string> } {
  const local: Record<string, string> = {};
  let params: unknown = {};
  try {
    params = f.params.trim() === '' ? {} : JSON.parse(f.params);
  } catch (e) {
    local.params = t('not valid JSON: {{reason}}', { reason: (e as Error).message });
  }
  const trigger: Record<string, unknown> = { kind: f.kind };
  if (f.kind === 'FIXED_RATE') trigger.intervalMs = ms(f.intervalMs);
  if (f.kind === 'FIXED_DELAY') trigger.delayMs = ms(f.delayMs);
  if (f.kind === 'CRON') Object.assign(trigger, { expression: f.expression, timeZone: f.timeZone, repeatedTime: f.repeatedTime, skippedTime: f.skippedTime });
  if (f.kind === 'ONCE') {
    const at = fromLocalInput(f.at);
    if (at === null) local['trigger.at'] = t('a date and time is required');
    trigger.at = at;
  }
  if (f.kind === 'EVENT') {
    const json = (text: string, field: string, empty: unknown): unknown => {
      if (text.trim() === '') return empty;
      try {
        return JSON.parse(text);
      } catch (e) {
        local[field] = t('not valid JSON: {{reason}}', { reason: (e as Error).message });
        return empty;
      }
    };
    Object.assign(trigger, { event: f.eventName, filter: json(f.eventFilter, 'trigger.filter', {}), params: json(f.eventParams, 'trigger.params', null) });
  }
  return {
    local,
    body: {
      name: f.name,
      group: f.group,
      executorApp: f.executorApp,
      handler: f.handler,
      params,
      trigger,
      startAt: fromLocalInput(f.startAt),
      endAt: fromLocalInput(f.endAt),
      maxFires: optNum(f.maxFires),
      misfirePolicy: f.misfirePolicy,
      misfireThresholdMs: ms(f.misfireThresholdMs),
      priority: num(f.priority),
      concurrencyPolicy: f.concurrencyPolicy,
      timeoutMs: ms(f.timeoutMs),
      startDeadlineMs: ms(f.startDeadlineMs),
      onStartLate: f.onStartLate,
      retry: { maxAttempts: num(f.maxAttempts), backoffBaseMs: ms(f.backoffBaseMs), backoffMaxMs: ms(f.backoffMaxMs), jitter: num(f.jitter) },
      calendarName: f.calendarName.trim() === '' ? null : f.calendarName.trim(),
      alarms: { types: f.alarmTypes, silenceMs: ms(f.silenceMs) },
      paused: f.paused,
      pauseAfterFailures: optNum(f.pauseAfterFailures),
      fanOut: { mode: f.fanOutMode, shards: f.fanOutMode === 'SHARDED' ? num(f.fanOutShards) : null, failWhen: f.fanOutFailWhen },
      concurrency: f.concurrencyKey.trim() === '' ? null : { key: f.concurrencyKey.trim(), limit: num(f.concurrencyLimit), onLimit: f.concurrencyOnLimit, ...keyGroup(f.concurrencyGroup) },
      rateLimit: f.rateKey.trim() === '' ? null : { key: f.rateKey.trim(), perSecond: num(f.ratePerSecond), burst: num(f.rateBurst), ...keyGroup(f.rateGroup) },
      debounce: f.debounceKey.trim() === '' ? null : { key: f.debounceKey.trim(), quietMs: num(f.debounceQuietMs), ...(f.debounceMaxWaitMs.trim() === '' ? {} : { maxWaitMs: num(f.debounceMaxWaitMs) }) },
      throttle: f.throttleKey.trim() === '' ? null : { key: f.throttleKey.trim(), limit: num(f.throttleLimit), periodMs: num(f.throttlePeriodMs), keep: f.throttleKeep },
      importedFrom: f.importedFrom,
    },
  };
}


/** A bound's key group as sent: left out when empty (the task's own keys). */
function keyGroup(text: string): { group?: string } {
  return text.trim() === '' ? {} : { group: text.trim() };
}

/** What a section of the editor gets: the form, its setter, and the reasons the API gave for some fields. */
export interface SectionProps {
  form: Form;
  set: <K extends keyof Form>(key: K, value: Form[K]) => void;
  /** The reasons given for any of these fields, joined; undefined when none. */
  err: (...fields: string[]) => string | undefined;
}
