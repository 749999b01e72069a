import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { CliCommand } from '../common/cli-command';
import { redactUrlPasswords } from '@baton/domain';
import { UsageError } from '../common/usage-error';
import type { Imported } from '../import/imported';
import type { ItemNoun } from '../import/import-document';
import { readNamedFile } from '../common/read-named-file';
import { writeNamedFile } from '../common/write-named-file';
import { NO_FILE, quartzNothingMatched, quartzPartlyMatched, xxlJobNothingMatched, xxlJobPartlyMatched } from '../import/nothing-matched';
import { keptNames } from '../import/kept-names';

const COMMON_OPTIONS = `  --from <instant>           cut-over: tasks fire strictly after this ISO-8601 instant (the
                             moment the old scheduler stops); see docs/MANUAL.md
  -o, --output <file>        the file to write (default stdout); a task it already names keeps
                             its name (by importedFrom, where each task came from)`;

const HELP = `usage: baton import quartz --url <mysql URL> [options]
       baton import xxl-job --url <mysql URL> [options]

Reads another scheduler's tables on MySQL/MariaDB (read-only, one consistent snapshot) and
writes a tasks-as-code file for \`baton plan -f\` / \`baton apply -f\`. Its header (also printed
on stderr) lists every trigger or job: the task it became and what Baton does not carry, or why
it was not imported (a note several share is said once, with the items it holds for). A file
holds about 6,000 tasks (the tasks-as-code budget: 100,000 YAML entries, 4 MB): import a larger
scheduler a group at a time (--job-group, --app), a file each.

baton import quartz: a Quartz 2.x JDBC JobStore; one task per trigger, HolidayCalendars as calendars.
  --url <url>                mysql://user:pass@host:3306/database of the Quartz tables   required
  --table-prefix <prefix>    org.quartz.jobStore.tablePrefix (default QRTZ_)
  --scheduler <name>         org.quartz.scheduler.instanceName (default QuartzScheduler)
  --executor-app <app>       the executor app of every job class not mapped (default quartz)
  --map <class>=<app>[:<handler>]
                             a job class's executor app and handler (repeatable; the handler
                             defaults to the class name)
  --mapping <file>           the same as a YAML/JSON file: { <class>: { executorApp, handler } }
  --misfire-threshold-ms <n> org.quartz.jobStore.misfireThreshold (default 60000, Quartz's)
  --time-zone <zone>         the Quartz JVM's time zone, for calendars without one (default UTC)
  --job-group <group>        only this job group's jobs (repeatable)
${COMMON_OPTIONS}

baton import xxl-job: an XXL-JOB 2.1–3.x admin database (xxl_job_group, xxl_job_info); one task
per BEAN job, child jobs as dependencies; GLUE jobs are listed, not imported.
  --url <url>                mysql://user:pass@host:3306/database of the XXL-JOB tables  required
  --table-prefix <prefix>    the tables' prefix (default xxl_job_)
  --map <app>[/<handler>]=<app>[:<handler>]
                             an executor group's (or one handler's) Baton executor app and
                             handler (repeatable; default: the group's app name, the handler)
  --mapping <file>           the same as a YAML/JSON file: { <app>[/<handler>]: { executorApp, handler } }
  --time-zone <zone>         the admin JVM's time zone, in which XXL-JOB reads crons (default UTC)
  --app <app name>           only this executor group's jobs (repeatable)
  --sharded <n>              SHARDING_BROADCAST jobs become SHARDED fan-outs of n shards
                             (default: BROADCAST, one shard per executor, as XXL-JOB does)
${COMMON_OPTIONS}`;

type Mapping = Record<string, { executorApp?: string; handler?: string }>;

/** What both sources take; each source's own flags fill `extra`. */
interface ImportArguments {
  source: 'quartz' | 'xxl-job';
  url: string;
  tablePrefix: string;
  mapping: Mapping;
  timeZone: string;
  from: number | null;
  output: string | null;
  /** Flag → its values, in order (repeatable flags keep every one). */
  extra: Map<string, string[]>;
}

const SOURCE_FLAGS: Record<ImportArguments['source'], { prefix: string; mapKey: string; flags: string[] }> = {
  quartz: { prefix: 'QRTZ_', mapKey: '<class>', flags: ['--scheduler', '--executor-app', '--misfire-threshold-ms', '--job-group'] },
  'xxl-job': { prefix: 'xxl_job_', mapKey: '<app>[/<handler>]', flags: ['--app', '--sharded'] },
};

/** A bad command line of `baton import <source>`, named so (`baton import quartz: …`). */
function sourceUsage(source: ImportArguments['source']): (message: string) => UsageError {
  return (message) => new UsageError(message, `import ${source}`);
}

function importArguments(args: string[]): ImportArguments {
  const source = args[0];
  if (source !== 'quartz' && source !== 'xxl-job') throw new UsageError(`unknown source "${source ?? ''}" (baton import quartz|xxl-job …)`);
  const usage = sourceUsage(source);
  const own = SOURCE_FLAGS[source];
  const parsed: ImportArguments = { source, url: '', tablePrefix: own.prefix, mapping: {}, timeZone: 'UTC', from: null, output: null, extra: new Map() };
  for (let i = 1; i < args.length; i++) {
    const flag = args[i];
    const value = () => {
      const v = args[++i];
      if (v === undefined) throw usage(`${flag} needs a value`);
      return v;
    };
    if (flag === '--url') parsed.url = value();
    else if (flag === '--table-prefix') parsed.tablePrefix = value();
    else if (flag === '--map') mapOne(parsed.mapping, value(), own.mapKey, usage);
    else if (flag === '--mapping') readMapping(parsed.mapping, value(), own.mapKey, usage);
    else if (flag === '--time-zone') parsed.timeZone = value();
    else if (flag === '--from') parsed.from = instant(value(), usage);
    else if (flag === '-o' || flag === '--output') parsed.output = value();
    else if (own.flags.includes(flag)) parsed.extra.set(flag, [...(parsed.extra.get(flag) ?? []), value()]);
    else throw usage(`unknown argument "${flag}"`);
  }
  if (!parsed.url) throw usage('needs --url <mysql://user:pass@host:3306/database>');
  // The readers speak MySQL's protocol alone: another database's URL (Quartz on PostgreSQL, say) failed at connect with a DNS or socket error that named neither.
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(parsed.url)?.[1];
  if (scheme !== 'mysql' && scheme !== 'mariadb') throw usage(`--url "${redactUrlPasswords(parsed.url)}": ${scheme === undefined ? 'no scheme' : `${scheme}:// is not read`}; the tables are read on MySQL or MariaDB only, with mysql:// or mariadb:// (mysql://user:pass@host:3306/database)`);
  return parsed;
}

function mapOne(mapping: Mapping, spec: string, key: string, usage: (m: string) => UsageError): void {
  const match = /^([^=]+)=([^:]+)(?::(.+))?$/.exec(spec);
  if (!match) throw usage(`--map "${spec}": write ${key}=<app>[:<handler>]`);
  mapping[match[1]] = { executorApp: match[2], ...(match[3] ? { handler: match[3] } : {}) };
}

function readMapping(mapping: Mapping, file: string, key: string, usage: (m: string) => UsageError): void {
  const text = readNamedFile('--mapping', file, usage);
  let read: unknown;
  try {
    read = parse(text);
  } catch (error) {
    throw usage(`--mapping ${file}: is not valid YAML or JSON: ${(error as Error).message.split('\n')[0]}`);
  }
  if (typeof read !== 'object' || read === null) throw usage(`--mapping ${file}: must map ${key} to { executorApp, handler }`);
  for (const [name, target] of Object.entries(read as Record<string, unknown>)) {
    const t = target as { executorApp?: unknown; handler?: unknown } | null;
    const ok = typeof t === 'object' && t !== null && ['executorApp', 'handler'].every((k) => t[k as keyof typeof t] === undefined || typeof t[k as keyof typeof t] === 'string');
    if (!ok) throw usage(`--mapping ${file}: "${name}" must be { executorApp: <app>, handler: <handler> }`);
    mapping[name] = { ...(t!.executorApp ? { executorApp: t!.executorApp as string } : {}), ...(t!.handler ? { handler: t!.handler as string } : {}) };
  }
}

function wholeNumber(flag: string, value: string, unit: string, usage: (m: string) => UsageError): number {
  if (!/^\d+$/.test(value)) throw usage(`${flag} must be a whole number of ${unit} (got "${value}")`);
  return Number(value);
}

function instant(value: string, usage: (m: string) => UsageError): number {
  const t = /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : NaN;
  if (!Number.isFinite(t)) throw usage(`--from must be an ISO-8601 instant such as 2027-03-01T02:00:00Z (got "${value}")`);
  return t;
}

/**
 * What a reading gives: the import (and a warning naming the --app / --job-group names that
 * matched nothing, when others did), or why there is none — exit 1 when the tables cannot be read,
 * 2 when they hold nothing the flags match (bad input, as a bad command line exits; the message
 * names what exists, so the usage is not printed after it).
 */
type Outcome = { imported: Imported; unmatched: string | null } | { refused: string; exitCode: 1 | 2 };

/** One source: checks its own flags, reads its tables and maps them. */
interface Reading {
  what: string;
  noun: ItemNoun;
  manualSection: string;
  /** How to split an import over the console's budget: the flag that takes a part of it. */
  split: string;
  read(): Promise<Outcome>;
}

/** The database the URL names (its path), as the tasks' importedFrom says where they were read: `mysql://…/scheduler` → scheduler. */
function databaseOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  } catch {
    return '';
  }
}

/**
 * The names of the tasks-as-code file `-o` is about to replace, by importedFrom: the import keeps
 * them (TaskNames), so re-importing into the same file keeps its names. None without -o or a file.
 */
function keptNamesOf(output: string | null): Map<string, string> {
  if (output === null) return new Map();
  let text: string;
  try {
    text = readFileSync(output, 'utf8');
  } catch {
    return new Map(); // none yet (or one that cannot be read: writing it says why)
  }
  const names = keptNames(text);
  if (names === null) console.error(`baton: warning: ${output} is not YAML: no task names are kept from it, and it is replaced`);
  return names ?? new Map();
}

async function quartzReading(parsed: ImportArguments, now: number, usage: (m: string) => UsageError): Promise<Reading> {
  const { TABLE_PREFIX_PATTERN, readQuartzStore } = await import('../import-quartz/read-quartz-store');
  if (!TABLE_PREFIX_PATTERN.test(parsed.tablePrefix)) throw usage(`--table-prefix "${parsed.tablePrefix}": letters, digits and _ only`);
  const { importQuartz } = await import('../import-quartz/quartz-import');
  const last = (flag: string) => parsed.extra.get(flag)?.at(-1);
  const scheduler = last('--scheduler') ?? 'QuartzScheduler';
  const threshold = last('--misfire-threshold-ms');
  const options = {
    executorApp: last('--executor-app') ?? 'quartz',
    classes: parsed.mapping,
    misfireThresholdMs: threshold === undefined ? 60_000 : wholeNumber('--misfire-threshold-ms', threshold, 'milliseconds', usage),
    defaultTimeZone: parsed.timeZone,
    from: parsed.from,
    now,
    jobGroups: parsed.extra.get('--job-group') ?? null,
    tablePrefix: parsed.tablePrefix,
    origin: `quartz:${databaseOf(parsed.url)}/${parsed.tablePrefix}/${scheduler}`,
    keptNames: keptNamesOf(parsed.output),
  };
  return {
    what: `Quartz scheduler "${scheduler}" (${parsed.tablePrefix}* at ${redactUrlPasswords(parsed.url)})`,
    noun: 'trigger',
    manualSection: 'Moving in from Quartz',
    split: 'a job group at a time (--job-group <group>)',
    async read() {
      let store;
      try {
        store = await readQuartzStore(parsed.url, parsed.tablePrefix, scheduler);
      } catch (error) {
        return { refused: `cannot read the Quartz tables ${parsed.tablePrefix}* at ${redactUrlPasswords(parsed.url)}: ${(error as Error).message}`, exitCode: 1 };
      }
      const imported = importQuartz(store, options);
      const nothing = quartzNothingMatched(store, imported.entries.length, scheduler, parsed.tablePrefix, options.jobGroups);
      return nothing === null ? { imported, unmatched: quartzPartlyMatched(store, scheduler, options.jobGroups) } : { refused: nothing, exitCode: 2 };
    },
  };
}

async function xxlJobReading(parsed: ImportArguments, now: number, usage: (m: string) => UsageError): Promise<Reading> {
  const { XXL_TABLE_PREFIX_PATTERN, readXxlJobTables } = await import('../import-xxl-job/read-xxl-job-tables');
  if (!XXL_TABLE_PREFIX_PATTERN.test(parsed.tablePrefix)) throw usage(`--table-prefix "${parsed.tablePrefix}": letters, digits and _ only`);
  const { importXxlJob } = await import('../import-xxl-job/xxl-job-import');
  const { MAX_SHARDS } = await import('@baton/domain');
  const sharded = parsed.extra.get('--sharded')?.at(-1);
  const shards = sharded === undefined ? null : wholeNumber('--sharded', sharded, 'shards', usage);
  if (shards !== null && (shards < 1 || shards > MAX_SHARDS)) throw usage(`--sharded must be 1 to ${MAX_SHARDS} (got ${shards})`);
  const options = {
    mapping: parsed.mapping,
    timeZone: parsed.timeZone,
    shards,
    from: parsed.from,
    now,
    apps: parsed.extra.get('--app') ?? null,
    origin: `xxl-job:${databaseOf(parsed.url)}/${parsed.tablePrefix}`,
    keptNames: keptNamesOf(parsed.output),
  };
  return {
    what: `XXL-JOB (${parsed.tablePrefix}group, ${parsed.tablePrefix}info at ${redactUrlPasswords(parsed.url)})`,
    noun: 'job',
    manualSection: 'Moving in from XXL-JOB',
    split: 'an executor group at a time (--app <app name>)',
    async read() {
      let tables;
      try {
        tables = await readXxlJobTables(parsed.url, parsed.tablePrefix);
      } catch (error) {
        return { refused: `cannot read the XXL-JOB tables ${parsed.tablePrefix}* at ${redactUrlPasswords(parsed.url)}: ${(error as Error).message}`, exitCode: 1 };
      }
      const imported = importXxlJob(tables, options);
      const nothing = xxlJobNothingMatched(tables, imported.entries.length, parsed.tablePrefix, options.apps);
      return nothing === null ? { imported, unmatched: xxlJobPartlyMatched(tables, parsed.tablePrefix, options.apps) } : { refused: nothing, exitCode: 2 };
    },
  };
}

export const importCommand: CliCommand = {
  name: 'import',
  summary: 'Write a tasks-as-code file from Quartz or XXL-JOB tables (baton import quartz|xxl-job)',
  help: HELP,
  async run(args) {
    const parsed = importArguments(args);
    const usage = sourceUsage(parsed.source);
    const { canonicalTimeZone } = await import('@baton/domain');
    if (canonicalTimeZone(parsed.timeZone) === null) throw usage(`--time-zone "${parsed.timeZone}" is not an IANA time zone`);
    const now = Date.now();
    const reading = parsed.source === 'quartz' ? await quartzReading(parsed, now, usage) : await xxlJobReading(parsed, now, usage);
    const { importDocument, importReport } = await import('../import/import-document');
    const outcome = await reading.read();
    if ('refused' in outcome) {
      console.error(`baton import ${parsed.source}: ${outcome.refused}`);
      process.exit(outcome.exitCode);
    }
    const { imported, unmatched } = outcome;
    const warnUnmatched = () => {
      if (unmatched !== null) console.error(`baton: warning: ${unmatched}`);
    };
    if (imported.tasks.length === 0) {
      // Matched, but none could be carried: the same `tasks: []` as a match of nothing (nothing-matched.ts), said with each reason.
      console.error(importReport(imported, reading.noun).join('\n'));
      warnUnmatched();
      console.error(`baton import ${parsed.source}: none of the ${imported.entries.length} ${reading.noun}(s) read could be imported (each listed above with why); a file of no tasks, applied with --prune, would delete every task of the tenant. ${NO_FILE}`);
      process.exit(2);
    }
    const { from } = parsed;
    if (from !== null && from < now) console.error(`baton: warning: --from ${new Date(from).toISOString()} has passed: a task fires from the moment it is applied, so fire times between --from and the apply are made by neither scheduler (docs/MANUAL.md, "${reading.manualSection}")`);
    const document = importDocument(reading.what, imported, reading.noun);
    if (parsed.output) writeNamedFile('-o', parsed.output, document, usage);
    else process.stdout.write(document);
    console.error(importReport(imported, reading.noun).join('\n'));
    warnUnmatched();
    // Written all the same (its header is the inventory), but said last, where it is read: the console refuses it with no hint of how to split.
    const { overBudget } = await import('../import/file-budget');
    const { countBy, countedNames } = await import('../import/nothing-matched');
    const over = overBudget(document);
    if (over !== null) console.error(`baton: warning: ${parsed.output ?? 'the file'} will not plan or apply: ${over}. Import ${reading.split}, a file each (its tasks by group: ${countedNames(countBy(imported.tasks, (t) => String(t.group)), 'task')}); one group this large cannot be split by baton import (docs/MANUAL.md, "${reading.manualSection}")`);
  },
};
