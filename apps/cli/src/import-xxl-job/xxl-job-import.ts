import { canonicalCronTrigger, findCycle, firstFireTime, MAX_HANDLER_LENGTH, MAX_INT32, MAX_RETRY_ATTEMPTS, NAME_MAX_LENGTH, NAME_PATTERN, type DependencyEdge } from '@baton/domain';
import { firstFireFrom, scheduleOfFields, type ScheduleFields } from '../import/cut-over';
import { knownZone } from '../import/known-zone';
import { sanitizeName, TaskNames, type ImportedTask, type ImportEntry, type Imported } from '../import/imported';
import { QUARTZ_CRON_DST, translateQuartzCron } from '../import/quartz-cron';
import type { XxlJob, XxlJobGroup, XxlJobTables } from './xxl-job-rows';
import { concurrencyPolicyOf, fanOutOf, misfirePolicyOf } from './xxl-job-strategies';
import { intervalProblem } from '../import/interval';
import { NO_TIMEOUT_MS } from '../import/no-timeout';
import { noteSecretParams } from '../import/secret-params';
import { paramsLimitProblem } from '../import/params-limit';

/** How jobs become tasks; every default is the CLI's (import.command.ts). */
export interface XxlJobImportOptions {
  /** XXL-JOB app name, or `<app name>/<handler>`, → executor app and/or handler. Default: the app name and the job's handler. */
  mapping: Record<string, { executorApp?: string; handler?: string }>;
  /** The admin JVM's time zone, in which XXL-JOB reads every cron. Default UTC. */
  timeZone: string;
  /** SHARDING_BROADCAST jobs become SHARDED fan-outs of this many shards. Null (default): BROADCAST, a shard per executor, as XXL-JOB does. */
  shards: number | null;
  /** The cut-over instant (epoch ms): tasks fire strictly after it. Null: as the task's trigger gives. */
  from: number | null;
  /** The import's clock reading (epoch ms): a job with no fire time after it (nor after `from`) is not imported. */
  now: number;
  /** Only the jobs of these executor groups (app names). Null: every job. */
  apps: string[] | null;
  /** Where the jobs are read (`xxl-job:<database>/<table prefix>`): each task's importedFrom is it and the job's entry (`… job 7`). */
  origin: string;
  /** The names of the file this import replaces, by importedFrom (TaskNames): kept. Empty: none. */
  keptNames: ReadonlyMap<string, string>;
}

const SCHEDULER = 'XXL-JOB';

/**
 * How every task differs a little from its job when no executor takes a fire: XXL-JOB fails the
 * trigger that finds no executor address at once (its retries per executor_fail_retry_count find
 * none either, its alarm), so every task is imported with onStartLate GIVE_UP — the run ends FAILED
 * once it has waited its start deadline for an executor, not retried — and the header says so.
 */
const WAITING_FOR_AN_EXECUTOR =
  'Runs waiting for an executor: XXL-JOB fails a fire at once when no executor of its group is registered ("executor address empty"), so after an outage only the fires from then on run. ' +
  'Every task is imported with onStartLate: GIVE_UP, which does the same a start deadline later: a run no executor of its app has taken startDeadlineMs (10 s) after its fire ends FAILED, not retried, with a START_LATE alarm saying it was given up; a run already sent to an executor is never given up. ' +
  'Set onStartLate: ALARM on a task whose every fire must run, late if need be (it then waits in RETRY_WAIT until an executor is UP; docs/MANUAL.md, "Moving in from XXL-JOB").';

/**
 * An XXL-JOB admin's jobs as Baton tasks: one task per BEAN job, named `<handler>-<job id>` after
 * the job's own handler, whatever --map makes of it (the id keeps names unique, and a name made of
 * the job alone stays the same from one import to the next; a name the replaced file gives the job
 * is kept: TaskNames), imported from `<origin> job <id>`, and grouped by its executor group's
 * app name; its child job ids as ON_SUCCESS dependencies (XXL-JOB fires children when a run
 * succeeds). Whatever has no Baton form is in the job's entry; a job that cannot run as XXL-JOB
 * runs it (a GLUE job, a cron Baton cannot follow) is not imported, and its entry says why.
 */
export function importXxlJob(tables: XxlJobTables, options: XxlJobImportOptions): Imported {
  const groups = new Map(tables.groups.map((g) => [g.id, g]));
  const wanted = options.apps === null ? null : new Set(options.apps);
  const jobs = tables.jobs.filter((j) => wanted === null || wanted.has(groups.get(j.jobGroup)?.appName ?? ''));
  const result: Imported = { calendars: [], tasks: [], dependencies: [], entries: [], notes: [] };
  const names = new TaskNames(NAME_MAX_LENGTH, options.keptNames);
  const taskOf = new Map<number, string>();
  const reasonOf = new Map<number, string>();
  const entryOf = new Map<number, ImportEntry>();

  for (const job of jobs) {
    const entry: ImportEntry = { source: `job ${job.id}`, task: null, notes: [] };
    result.entries.push(entry);
    entryOf.set(job.id, entry);
    const task = taskOfJob(job, groups.get(job.jobGroup), options, names, entry);
    if (typeof task === 'string') {
      entry.notes.unshift(`not imported: ${task}`);
      reasonOf.set(job.id, task);
      continue;
    }
    result.tasks.push(task);
    entry.task = task.name;
    taskOf.set(job.id, task.name);
  }

  const known = new Set(tables.jobs.map((j) => j.id));
  const edges: Edges = { list: result.dependencies, parents: new Set(), children: new Set() };
  for (const job of jobs) {
    const parent = taskOf.get(job.id);
    if (parent === undefined) continue;
    for (const child of childIds(job.childJobIds, entryOf.get(job.id)!.notes)) {
      const notes = entryOf.get(job.id)!.notes;
      const childTask = taskOf.get(child);
      if (child === job.id) notes.push(`child job ${child} is the job itself: XXL-JOB ignores it, and so does the import`);
      else if (childTask === undefined) notes.push(`child job ${child} not carried: ${reasonOf.has(child) ? `it is not imported (${reasonOf.get(child)})` : known.has(child) ? 'its executor group is not imported (--app)' : 'no such job'}`);
      else addDependency(edges, { parent, child: childTask, condition: 'ON_SUCCESS' }, notes, child);
    }
  }
  if (result.tasks.some((task) => task.trigger.kind === 'CRON')) result.notes.push(cronZoneNote(knownZone(options.timeZone) ?? options.timeZone));
  result.notes.push(WAITING_FOR_AN_EXECUTOR);
  noteSecretParams(result);
  return result;
}

/** The zone every cron was read in, said once: XXL-JOB's rows do not hold it, and a wrong one moves every fire by its offset. */
function cronZoneNote(zone: string): string {
  return `Time zone: every cron is read in ${zone} (--time-zone, default UTC), as XXL-JOB's admin reads its crons in its JVM's zone. If the admin runs in another (its -Duser.timezone, else its host's), import again with --time-zone <that zone>: each cron task would fire off by the two zones' difference.`;
}

/** The job's task, or the reason it is not imported. */
function taskOfJob(job: XxlJob, group: XxlJobGroup | undefined, options: XxlJobImportOptions, names: TaskNames, entry: ImportEntry): ImportedTask | string {
  const { notes } = entry;
  if (job.glueType !== 'BEAN') return `a GLUE job (${job.glueType}): its source lives in XXL-JOB's database and runs inside the executor; Baton runs the handlers executors register — make it a handler of your executor first`;
  if (!group) return `its executor group ${job.jobGroup} is not in xxl_job_group`;
  const own = (job.handler ?? '').trim();
  const mapped = options.mapping[`${group.appName}/${job.handler ?? ''}`] ?? options.mapping[group.appName] ?? {};
  const handler = mapped.handler ?? own;
  if (handler === '') return 'it has no executor_handler';
  if (handler.length > MAX_HANDLER_LENGTH || !/^[\x21-\x7e]+$/.test(handler)) return `its handler "${handler}" is not one Baton can name (printable ASCII without spaces, at most ${MAX_HANDLER_LENGTH} characters): map it with --map ${group.appName}/${handler}=<app>:<handler>`;
  const executorApp = mapped.executorApp ?? sanitizeName(group.appName).slice(0, NAME_MAX_LENGTH);
  if (mapped.executorApp === undefined && !NAME_PATTERN.test(group.appName)) notes.push(`app name "${group.appName}" is not a Baton name: executor app ${executorApp}`);
  const fanOut = fanOutOf(job.routeStrategy, options.shards);
  if ('refused' in fanOut) return fanOut.refused;
  const schedule = scheduleOf(job, options, notes);
  if (typeof schedule === 'string') return schedule;
  const params = paramsLimitProblem(job.param ?? undefined);
  if (params !== null) return params;

  const concurrency = concurrencyPolicyOf(job.blockStrategy);
  for (const difference of [fanOut.difference, concurrency.difference]) if (difference) notes.push(difference);
  // A Baton task has no description or owner, and alarms go to the tenant's webhooks (docs/MANUAL.md).
  const described = [job.description && `description "${job.description}"`, job.author && `author ${job.author}`, job.alarmEmail && `alarm email ${job.alarmEmail}`].filter(Boolean).join(', ');
  if (described) notes.push(`not carried: ${described}`);
  const importedFrom = `${options.origin} ${entry.source}`;
  return {
    name: names.nameOf(importedFrom, [`${own || 'job'}-${job.id}`], notes),
    group: sanitizeName(group.appName).slice(0, NAME_MAX_LENGTH),
    executorApp,
    handler,
    // XXL-JOB hands its handler the parameter as one string: Baton's params are that JSON string, as is.
    ...(job.param ? { params: job.param } : {}),
    ...schedule,
    concurrencyPolicy: concurrency.value,
    // Seconds; 0 (none in XXL-JOB) is Baton's longest.
    timeoutMs: job.timeoutSeconds > 0 ? Math.min(job.timeoutSeconds * 1000, MAX_INT32) : NO_TIMEOUT_MS,
    // XXL-JOB fails a fire no executor takes (WAITING_FOR_AN_EXECUTOR).
    onStartLate: 'GIVE_UP',
    ...retryOf(job.failRetryCount, notes),
    ...(fanOut.value ? { fanOut: fanOut.value } : {}),
    ...(job.triggerStatus === 0 && schedule.trigger.kind !== 'MANUAL' ? { paused: true } : {}),
    importedFrom,
  };
}

/** The job's schedule fields, or the reason it is not imported. */
function scheduleOf(job: XxlJob, options: XxlJobImportOptions, notes: string[]): ScheduleFields | string {
  const misfire = misfirePolicyOf(job.misfireStrategy);
  if (misfire.difference) notes.push(misfire.difference);
  const conf = (job.scheduleConf ?? '').trim();
  let fields: ScheduleFields;
  switch (job.scheduleType) {
    case 'NONE':
      return { trigger: { kind: 'MANUAL' }, misfirePolicy: misfire.value };
    case 'CRON': {
      if (conf === '') return 'it is a CRON job with no cron (schedule_conf, job_cron before 2.3, is NULL or empty)';
      const zone = knownZone(options.timeZone);
      if (zone === null) return `time zone "${options.timeZone}" is not an IANA zone Baton knows`;
      const cron = translateQuartzCron(conf, zone);
      if (!cron.ok) return cron.reason;
      if (cron.note) notes.push(cron.note);
      fields = { trigger: canonicalCronTrigger({ kind: 'CRON', expression: cron.expression, timeZone: zone, ...QUARTZ_CRON_DST }), misfirePolicy: misfire.value, ...(cron.notBefore !== null ? { startAt: cron.notBefore } : {}), ...(cron.notAfter !== null ? { endAt: cron.notAfter } : {}) };
      break;
    }
    case 'FIX_RATE': {
      if (conf === '') return 'it is a FIX_RATE job with no interval (schedule_conf is NULL or empty)';
      const seconds = /^\d+$/.test(conf) ? Number(conf) : NaN;
      if (!(seconds > 0)) return `fix rate "${conf}" is not a whole number of seconds above 0`;
      const problem = intervalProblem(seconds * 1000);
      if (problem) return `fix rate ${seconds} s: ${problem}`;
      const intervalMs = seconds * 1000;
      const startAt = gridStart(job, intervalMs);
      fields = { trigger: { kind: 'FIXED_RATE', intervalMs }, misfirePolicy: misfire.value, ...(startAt === null ? {} : { startAt }) };
      notes.push('fix rate: after a missed fire XXL-JOB restarts the interval, Baton keeps its grid');
      break;
    }
    default:
      notes.push(`schedule type "${job.scheduleType}" is unknown; XXL-JOB reads it as NONE (it never fires by itself): MANUAL`);
      return { trigger: { kind: 'MANUAL' }, misfirePolicy: misfire.value };
  }
  const assumedZone = fields.trigger.kind === 'CRON' ? fields.trigger.timeZone : null;
  const fired = options.from === null ? fields : firstFireFrom(fields, options.from, job.triggerNextTime > 0 ? job.triggerNextTime : null, SCHEDULER, notes, options.now, assumedZone);
  if (fired === null) return notes.shift()!.replace(/^not imported: /, '');
  const since = Math.max(options.now, options.from ?? -Infinity);
  const domainSchedule = scheduleOfFields(fired, options.now);
  // Baton refuses a task that can never fire (and an apply is all or nothing): such a job is listed instead.
  if (firstFireTime(domainSchedule, since) === null) return `it has no fire time after ${new Date(since).toISOString()} (its cron's years have passed)`;
  return fired;
}

/**
 * A FIX_RATE job's startAt: a point of the admin's grid (its stored next fire ± whole intervals),
 * so the task keeps the job's phase. Not the next fire itself, nor one derived from the clock:
 * the admin moves its next fire on at every fire, so either gave another startAt at each import
 * and a plan of an unchanged job showed a change. The grid's first point at or after the job's
 * add_time is the same at every import while the admin keeps the grid (it restarts it after a
 * misfire or a restart of the job: a change of phase the plan then shows), and never after the
 * admin's next fire (an add_time read off by a zone, or none, falls back to that fire or the
 * grid's first point after 1970). A startAt passed adds no fire: a new task fires from its first
 * grid point at or after the apply. A stopped job has no next fire: the task starts at the apply.
 */
function gridStart(job: XxlJob, intervalMs: number): number | null {
  const next = job.triggerNextTime;
  if (next <= 0) return null;
  const reference = Math.max(0, Math.min(job.addTime ?? 0, next));
  return next - Math.floor((next - reference) / intervalMs) * intervalMs;
}

/** executor_fail_retry_count: XXL-JOB runs a failed job again that many times; Baton counts the first attempt too. */
function retryOf(count: number, notes: string[]): { retry?: { maxAttempts: number } } {
  if (count <= 0) return {};
  const attempts = Math.min(count + 1, MAX_RETRY_ATTEMPTS);
  if (attempts !== count + 1) notes.push(`fail retry count ${count}: Baton's most is ${MAX_RETRY_ATTEMPTS - 1} retries`);
  return { retry: { maxAttempts: attempts } };
}

/** child_jobid: comma-separated ids; what is not a positive whole number is skipped by XXL-JOB too. */
function childIds(text: string | null, notes: string[]): number[] {
  const ids: number[] = [];
  for (const part of (text ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    if (/^\d+$/.test(part) && Number(part) > 0) ids.push(Number(part));
    else notes.push(`child job id "${part}" is not a job id (XXL-JOB skips it too)`);
  }
  return ids;
}

/** The edges kept so far, and which tasks are a parent or a child in them. */
interface Edges {
  list: DependencyEdge[];
  parents: Set<string>;
  children: Set<string>;
}

/**
 * Adds the edge unless it closes a cycle, which Baton refuses (XXL-JOB would fire round the loop
 * on every success). Only an edge into a task that is already a parent, from one that is already
 * a child, can close one: findCycle (which reads the whole list) is asked about those alone, so
 * thousands of chained jobs are not thousands of whole-list walks.
 */
function addDependency(edges: Edges, edge: DependencyEdge, notes: string[], child: number): void {
  const cycle = edges.parents.has(edge.child) && edges.children.has(edge.parent) ? findCycle(edges.list, edge) : null;
  if (cycle !== null) return void notes.push(`child job ${child} not carried: it closes a cycle (${cycle.join(' → ')}), which Baton refuses`);
  edges.list.push(edge);
  edges.parents.add(edge.parent);
  edges.children.add(edge.child);
}
