import { DateTime } from 'luxon';
import { canonicalCronTrigger, firstFireTime, NAME_MAX_LENGTH, PRIORITY_MAX, PRIORITY_MIN, type Trigger } from '@baton/domain';
import { readJobData } from './job-data';
import { JobDataError } from './job-data-error';
import { importCalendar } from './quartz-calendar';
import { resolveMisfire } from './quartz-misfire';
import type { QuartzJob, QuartzStore, QuartzTrigger } from './quartz-rows';
import { firstFireFrom, scheduleOfFields, type ScheduleFields } from '../import/cut-over';
import { changeAtTimeOfDay } from '../import/dst-difference';
import { knownZone } from '../import/known-zone';
import { sanitizeName, TaskNames, type ImportedTask, type ImportEntry, type Imported } from '../import/imported';
import { QUARTZ_CRON_DST, translateQuartzCron } from '../import/quartz-cron';
import { intervalProblem } from '../import/interval';
import { NO_TIMEOUT_MS, NO_TIMEOUT_TEXT } from '../import/no-timeout';
import { noteSecretParams } from '../import/secret-params';
import { paramsLimitProblem } from '../import/params-limit';

/** How jobs become tasks; every default is the CLI's (import.command.ts). */
export interface QuartzImportOptions {
  /** The executor app of a job class the mapping does not name. Default `quartz`. */
  executorApp: string;
  /** Job class → executor app and/or handler; a missing handler is the class name. */
  classes: Record<string, { executorApp?: string; handler?: string }>;
  /** Quartz's `org.quartz.jobStore.misfireThreshold`. Default 60 000 (Quartz's default). */
  misfireThresholdMs: number;
  /** The Quartz JVM's time zone: calendars and calendar-interval triggers without one are read in it. Default UTC. */
  defaultTimeZone: string;
  /** The cut-over instant (epoch ms): tasks fire strictly after it. Null: from each trigger's start. */
  from: number | null;
  /** The import's clock reading (epoch ms): a trigger with no fire time after it (nor after `from`) is not imported. */
  now: number;
  /** Only the jobs of these groups (and their triggers). Null: every job. */
  jobGroups: string[] | null;
  /** The tables' prefix, to name a table whose row is missing. Default QRTZ_. */
  tablePrefix?: string;
  /** Where the scheduler is read (`quartz:<database>/<table prefix>/<scheduler>`): each task's importedFrom is it and the entry's item (`… trigger DEFAULT.nightly`). */
  origin: string;
  /** The names of the file this import replaces, by importedFrom (TaskNames): kept. Empty: none. */
  keptNames: ReadonlyMap<string, string>;
}

const DEFAULT_GROUP = 'DEFAULT';
const ALL_GROUPS_PAUSED = '_$_ALL_GROUPS_PAUSED_$_';
const UNIT_MS: Record<string, number> = { SECOND: 1_000, MINUTE: 60_000, HOUR: 3_600_000 };
/** The table (after the prefix) holding each trigger type's schedule, and the field it is read into. */
const TYPE_ROW: Record<string, { table: string; field: 'cron' | 'simple' | 'props' }> = {
  CRON: { table: 'CRON_TRIGGERS', field: 'cron' },
  SIMPLE: { table: 'SIMPLE_TRIGGERS', field: 'simple' },
  CAL_INT: { table: 'SIMPROP_TRIGGERS', field: 'props' },
  DAILY_I: { table: 'SIMPROP_TRIGGERS', field: 'props' },
};

/**
 * A Quartz scheduler's rows as Baton tasks: one task per trigger (a job with several triggers
 * gives several tasks; a job with none, a MANUAL task), named after its job, plus the trigger's
 * name when the job has several — unless the file this import replaces names the trigger's task
 * otherwise (TaskNames keeps that name: a job's first trigger keeps `<job>` when a second comes),
 * imported from `<origin> trigger <group>.<name>` (a job without one: `… job <group>.<name>`), its job's class mapped to an executor
 * app and handler, its job data merged with the trigger's (the trigger's wins, as in Quartz's
 * merged JobDataMap) as params. Whatever has no Baton form is in the entry's notes; a trigger
 * that cannot fire as Quartz would is not imported, and its entry says why.
 */
export function importQuartz(whole: QuartzStore, options: QuartzImportOptions): Imported {
  const store = options.jobGroups === null ? whole : onlyJobGroups(whole, new Set(options.jobGroups));
  const result: Imported = { calendars: [], tasks: [], dependencies: [], entries: [], notes: [] };
  const calendars = new Map<string, { ok: true } | { ok: false; reason: string }>();
  for (const c of store.calendars) {
    const imported = importCalendar(c.blob, options.defaultTimeZone);
    calendars.set(c.name, imported.ok ? { ok: true } : imported);
    if (imported.ok) result.calendars.push({ name: c.name, timeZone: imported.timeZone, dates: imported.dates });
  }
  const jobs = new Map(store.jobs.map((j) => [key(j.group, j.name), j]));
  const triggersOf = new Map<string, number>();
  for (const t of store.triggers) triggersOf.set(key(t.jobGroup, t.jobName), (triggersOf.get(key(t.jobGroup, t.jobName)) ?? 0) + 1);
  const names = new TaskNames(NAME_MAX_LENGTH, options.keptNames);
  const paused = new Set(store.pausedGroups);

  for (const trigger of store.triggers) {
    const job = jobs.get(key(trigger.jobGroup, trigger.jobName));
    const entry: ImportEntry = { source: `trigger ${key(trigger.group, trigger.name)}`, task: null, notes: [] };
    result.entries.push(entry);
    if (!job) {
      entry.notes.push(`not imported: its job ${key(trigger.jobGroup, trigger.jobName)} is not in the store`);
      continue;
    }
    const schedule = scheduleOf(trigger, options, entry.notes);
    if (schedule === null) continue;
    const calendar = trigger.calendarName === null ? null : calendars.get(trigger.calendarName);
    if (trigger.calendarName !== null && !calendar?.ok) {
      entry.notes.unshift(`not imported: its calendar "${trigger.calendarName}" ${calendar ? calendar.reason : 'is not in the store'}`);
      continue;
    }
    const params = paramsOf(job, trigger, entry.notes);
    const tooLarge = paramsLimitProblem(params.params);
    if (tooLarge !== null) {
      entry.notes.unshift(`not imported: ${tooLarge}`);
      continue;
    }
    const named = [...(job.group === DEFAULT_GROUP ? [] : [job.group]), job.name, ...((triggersOf.get(key(job.group, job.name)) ?? 0) > 1 ? [trigger.name] : [])];
    const importedFrom = `${options.origin} ${entry.source}`;
    const task: ImportedTask = {
      name: names.nameOf(importedFrom, named, entry.notes),
      group: groupName(job.group),
      ...executorOf(job, options, entry.notes),
      ...params,
      ...schedule,
      misfireThresholdMs: options.misfireThresholdMs,
      timeoutMs: NO_TIMEOUT_MS,
      ...priorityOf(trigger.priority, entry.notes),
      ...(job.nonConcurrent ? { concurrencyPolicy: 'FORBID' } : {}),
      ...(trigger.calendarName === null ? {} : { calendarName: trigger.calendarName }),
      ...(pausedOf(trigger, paused, entry.notes) ? { paused: true } : {}),
      importedFrom,
    };
    if (job.nonConcurrent) entry.notes.push('@DisallowConcurrentExecution: Quartz delays a fire while the job runs, Baton (FORBID) skips it' + ((triggersOf.get(key(job.group, job.name)) ?? 0) > 1 ? '; and it applies per task, not across the job\'s triggers' : ''));
    result.tasks.push(task);
    entry.task = task.name;
  }

  for (const job of store.jobs) {
    if (triggersOf.has(key(job.group, job.name))) continue;
    const entry: ImportEntry = { source: `job ${key(job.group, job.name)}`, task: null, notes: ['no trigger: imported as a MANUAL task (run by hand or as a dependency)'] };
    result.entries.push(entry);
    const params = paramsOf(job, null, entry.notes);
    const tooLarge = paramsLimitProblem(params.params);
    if (tooLarge !== null) {
      entry.notes.splice(0, 1, `not imported: ${tooLarge}`);
      continue;
    }
    const importedFrom = `${options.origin} ${entry.source}`;
    const name = names.nameOf(importedFrom, [...(job.group === DEFAULT_GROUP ? [] : [job.group]), job.name], entry.notes);
    const task: ImportedTask = { name, group: groupName(job.group), ...executorOf(job, options, entry.notes), ...params, trigger: { kind: 'MANUAL' }, timeoutMs: NO_TIMEOUT_MS, importedFrom };
    result.tasks.push(task);
    entry.task = task.name;
  }
  result.notes.push(`Timeouts: a Quartz job has none, so every task's timeoutMs is ${NO_TIMEOUT_TEXT}, not Baton's default of 5 minutes, which would end a longer run TIMED_OUT. Lower it where a job should be stopped sooner.`);
  noteSecretParams(result);
  return result;
}


/** A store's jobs of the groups, their triggers, and every calendar (a calendar applied from two files is the same calendar). */
function onlyJobGroups(store: QuartzStore, groups: Set<string>): QuartzStore {
  return { ...store, jobs: store.jobs.filter((j) => groups.has(j.group)), triggers: store.triggers.filter((t) => groups.has(t.jobGroup)) };
}

/** The trigger's schedule fields, or null (not imported; the reason is in `notes`). */
function scheduleOf(trigger: QuartzTrigger, options: QuartzImportOptions, notes: string[]): ScheduleFields | null {
  const refuse = (reason: string): null => {
    notes.unshift(`not imported: ${reason}`);
    return null;
  };
  if (trigger.state === 'COMPLETE') return refuse('Quartz has completed it (it will not fire again)');
  // A row deleted by hand (or a half-finished delete) leaves a trigger with no schedule: Quartz cannot load it either.
  const row = TYPE_ROW[trigger.type];
  if (row && trigger[row.field] === null) return refuse(`its ${options.tablePrefix ?? 'QRTZ_'}${row.table} row is missing (a ${trigger.type} trigger's schedule is there); Quartz cannot load it either`);
  const misfire = resolveMisfire(trigger.type, trigger.misfireInstruction, trigger.simple?.repeatCount ?? null);
  if (misfire.difference) notes.push(misfire.difference);
  const fields = scheduleFieldsOf(trigger, options, refuse, notes);
  if (fields === null) return null;
  const schedule = { ...fields, misfirePolicy: misfire.policy };
  const fired = options.from === null ? schedule : firstFireFrom(schedule, options.from, trigger.nextFireTime, 'Quartz', notes, options.now);
  if (fired === null) return null;
  const domainSchedule = scheduleOfFields(fired, options.now);
  // Baton refuses a task that can never fire (and an apply is all or nothing): Quartz's finished triggers are listed instead.
  const since = Math.max(options.now, options.from ?? -Infinity);
  if (firstFireTime(domainSchedule, since) === null) return refuse(`it has no fire time after ${new Date(since).toISOString()} (its end time, repeat count or one-shot time has passed)`);
  return fired;
}

function scheduleFieldsOf(trigger: QuartzTrigger, options: QuartzImportOptions, refuse: (reason: string) => null, notes: string[]): Omit<ScheduleFields, 'misfirePolicy'> | null {
  switch (trigger.type) {
    case 'CRON': {
      const { expression, timeZone } = trigger.cron!;
      const zone = knownZone(timeZone ?? options.defaultTimeZone);
      if (zone === null) return refuse(`time zone "${timeZone}" is not an IANA zone Baton knows`);
      const cron = translateQuartzCron(expression, zone);
      if (!cron.ok) return refuse(cron.reason);
      if (cron.note) notes.push(cron.note);
      // Quartz's first fire is the first whole second after start − 1 s: a start with milliseconds admits its own second.
      const startAt = Math.max(Math.floor(trigger.startTime / 1000) * 1000, cron.notBefore ?? -Infinity);
      const endAt = Math.min(trigger.endTime ?? Infinity, cron.notAfter ?? Infinity);
      return bounded(canonicalCronTrigger({ kind: 'CRON', expression: cron.expression, timeZone: zone, ...QUARTZ_CRON_DST }), startAt, endAt);
    }
    case 'SIMPLE': {
      const { repeatCount, repeatInterval } = trigger.simple!;
      if (repeatCount === 0) return { trigger: { kind: 'ONCE', at: trigger.startTime } };
      // Quartz refuses to store it (SimpleTriggerImpl.validate): only a row edited by hand has one.
      if (repeatInterval <= 0) return refuse(`it repeats (repeat count ${repeatCount}) every ${repeatInterval} ms: an interval of 0 is not a schedule (Quartz refuses it too: "Repeat Interval cannot be zero.")`);
      const problem = intervalProblem(repeatInterval);
      if (problem) return refuse(`it repeats every ${repeatInterval} ms; ${problem}`);
      // Quartz's end time is exclusive for a simple trigger; its repeat count bounds the grid (start + k × interval, k ≤ count).
      const lastRepeat = repeatCount < 0 ? Infinity : trigger.startTime + repeatCount * repeatInterval;
      return bounded({ kind: 'FIXED_RATE', intervalMs: repeatInterval }, trigger.startTime, Math.min(lastRepeat, (trigger.endTime ?? Infinity) - 1));
    }
    case 'CAL_INT':
      return calendarIntervalOf(trigger, options, refuse, notes);
    case 'DAILY_I':
      return refuse(`a daily-time-interval trigger (${describeDailyInterval(trigger)}) has no single Baton schedule; write it as one or more cron tasks`);
    case 'BLOB':
      return refuse('a custom trigger class stored as a serialized object (BLOB): Baton knows only Quartz\'s own trigger types');
    default:
      return refuse(`trigger type "${trigger.type}" is unknown`);
  }
}

/** QRTZ_SIMPROP_TRIGGERS of a DAILY_I trigger: STR_PROP_1 the unit, STR_PROP_2 the days (1 = Sunday), STR_PROP_3 "h,m,s,h,m,s" (start and end of day), INT_PROP_1 the interval. */
function describeDailyInterval(trigger: QuartzTrigger): string {
  const p = trigger.props;
  const [h1, m1, s1, h2, m2, s2] = (p?.str3 ?? '').split(',').map((v) => v.padStart(2, '0'));
  const days = (p?.str2 ?? '').split(',').map((d) => ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'][Number(d) - 1] ?? d);
  return `every ${p?.int1} ${p?.str1?.toLowerCase()}(s) from ${h1}:${m1}:${s1} to ${h2}:${m2}:${s2} on ${days.join(',')}`;
}

/** CAL_INT: seconds, minutes and hours are an elapsed interval (FIXED_RATE); one day, week, month or year keeps the start's local time (a cron). */
function calendarIntervalOf(trigger: QuartzTrigger, options: QuartzImportOptions, refuse: (reason: string) => null, notes: string[]): Omit<ScheduleFields, 'misfirePolicy'> | null {
  const unit = trigger.props?.str1 ?? '';
  const interval = trigger.props?.int1 ?? 0;
  const zone = knownZone(trigger.props?.str2 || options.defaultTimeZone);
  if (zone === null) return refuse(`time zone "${trigger.props?.str2}" is not an IANA zone Baton knows`);
  const end = trigger.endTime ?? Infinity;
  if (UNIT_MS[unit] !== undefined) {
    const intervalMs = interval * UNIT_MS[unit];
    const problem = intervalProblem(intervalMs);
    if (problem) return refuse(`interval ${interval} ${unit}: ${problem}`);
    return bounded({ kind: 'FIXED_RATE', intervalMs }, trigger.startTime, end);
  }
  const start = DateTime.fromMillis(trigger.startTime, { zone });
  if (interval !== 1) return refuse(`a calendar interval of ${interval} ${unit.toLowerCase()}s: Baton's cron repeats every day, week, month or year, not every ${interval}`);
  const change = changeAtTimeOfDay(start.hour * 3600 + start.minute * 60 + start.second, zone, Math.max(trigger.startTime, options.now));
  if (change !== null) return refuse(`its time of day ${start.toFormat('HH:mm:ss')} is skipped or repeated by a daylight-saving change in ${zone} (${change}): Quartz's calendar arithmetic moves the time of day from there on, which Baton's cron cannot follow`);
  const time = `${start.second} ${start.minute} ${start.hour}`;
  const expression: Record<string, string | null> = {
    DAY: `${time} * * *`,
    WEEK: `${time} * * ${start.weekday % 7}`,
    MONTH: start.day <= 28 ? `${time} ${start.day} * *` : null,
    YEAR: start.month === 2 && start.day === 29 ? null : `${time} ${start.day} ${start.month} *`,
  };
  const cron = expression[unit];
  if (cron === undefined) return refuse(`calendar interval unit "${unit}" is unknown`);
  if (cron === null) {
    const from = unit === 'YEAR' ? 'every year from 29 February: Quartz moves it to 28 February' : `every month from day ${start.day}: Quartz moves it to a shorter month's last day`;
    return refuse(`${from} and keeps that day afterwards; Baton's cron has no such schedule`);
  }
  notes.push(`calendar interval of 1 ${unit.toLowerCase()} imported as cron "${cron}" in ${zone} (the start's local time)`);
  return bounded({ kind: 'CRON', expression: cron, timeZone: zone }, Math.floor(trigger.startTime / 1000) * 1000, end);
}

function bounded(trigger: Trigger, startAt: number, endAt: number): Omit<ScheduleFields, 'misfirePolicy'> {
  return { trigger, startAt, ...(Number.isFinite(endAt) ? { endAt } : {}) };
}

/** What Baton does instead of a job's @PersistJobDataAfterExecution (IS_UPDATE_DATA). */
const PERSISTS_DATA =
  "@PersistJobDataAfterExecution not carried: Quartz stores the JobDataMap a run changed and hands it to the next run; a Baton task's params are the same at every run, so a handler that needs something from run to run (a cursor, the last id done) keeps it itself (in its own database)";
/** What Baton does instead of a job's requestsRecovery (REQUESTS_RECOVERY). */
const REQUESTS_RECOVERY =
  "requests recovery not carried: Quartz runs the job again when its scheduler died while running it; Baton's work runs on an executor, which an engine's death does not stop, and a run whose executor died fails — it runs again only by the task's retry policy (retry.maxAttempts, 1 by default: raise it)";

function executorOf(job: QuartzJob, options: QuartzImportOptions, notes: string[]): { executorApp: string; handler: string } {
  const mapped = options.classes[job.className] ?? {};
  const handler = mapped.handler ?? job.className;
  if (job.description) notes.push(`job description not carried (Baton tasks have none): "${job.description}"`);
  if (job.persistsData) notes.push(PERSISTS_DATA);
  if (job.requestsRecovery) notes.push(REQUESTS_RECOVERY);
  if (mapped.handler === undefined && handler.length > 100) notes.push(`job class name longer than 100 characters: map it to a handler (--map)`);
  return { executorApp: mapped.executorApp ?? options.executorApp, handler: handler.slice(0, 100) };
}

/** `{ params }`, or nothing when there are none (Baton's default: a file of thousands of tasks stays small). */
function paramsOf(job: QuartzJob, trigger: QuartzTrigger | null, notes: string[]): { params?: Record<string, unknown> } {
  const params: Record<string, unknown> = {};
  for (const [source, blob] of [['job', job.jobData], ['trigger', trigger?.jobData ?? null]] as const) {
    try {
      const data = readJobData(blob);
      Object.assign(params, data.params);
      for (const d of data.dropped) notes.push(`${source} data "${d.key}" not carried: ${d.reason}`);
    } catch (error) {
      if (!(error instanceof JobDataError)) throw error;
      notes.push(`${source === 'job' ? `job ${key(job.group, job.name)}'s` : 'trigger'} data not carried: ${error.message}`);
    }
  }
  return Object.keys(params).length > 0 ? { params } : {};
}

/** Quartz's default priority is 5 and Baton's 0: the difference is kept, within Baton's range (0 left out, the default). */
function priorityOf(priority: number, notes: string[]): { priority?: number } {
  const shifted = priority - 5;
  const clamped = Math.min(PRIORITY_MAX, Math.max(PRIORITY_MIN, shifted));
  if (clamped !== shifted) notes.push(`priority ${priority} (Baton ${shifted}, Quartz's 5 being Baton's 0) is ${clamped === PRIORITY_MAX ? `above Baton's highest, ${PRIORITY_MAX}` : `below Baton's lowest, ${PRIORITY_MIN}`}: imported as ${clamped}`);
  return clamped === 0 ? {} : { priority: clamped };
}

function pausedOf(trigger: QuartzTrigger, pausedGroups: Set<string>, notes: string[]): boolean {
  if (trigger.state === 'ERROR') {
    notes.push('Quartz holds it in the ERROR state (its job failed to load): imported paused');
    return true;
  }
  if (pausedGroups.has(trigger.group) || pausedGroups.has(ALL_GROUPS_PAUSED)) {
    notes.push(`trigger group "${trigger.group}" is paused: imported paused`);
    return true;
  }
  return trigger.state === 'PAUSED' || trigger.state === 'PAUSED_BLOCKED';
}

function key(group: string, name: string): string {
  return `${group}.${name}`;
}

function groupName(group: string): string {
  return group === DEFAULT_GROUP ? 'default' : sanitizeName(group).slice(0, NAME_MAX_LENGTH);
}
