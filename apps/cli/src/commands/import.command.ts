import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { CliCommand } from '../common/cli-command';
import { safeDatabaseUrl } from '../common/migrate-database';
import { UsageError } from '../common/usage-error';

const HELP = `usage: baton import quartz --url <mysql URL> [options]

Reads a Quartz 2.x JDBC JobStore on MySQL/MariaDB (read-only, one consistent snapshot) and
writes a tasks-as-code file for \`baton plan -f\` / \`baton apply -f\`: one task per trigger,
Quartz's HolidayCalendars as calendars. Its header (also printed on stderr) lists every trigger
and job: the task it became and what Baton does not carry, or why it was not imported.

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
  --job-group <group>        only this job group's jobs (repeatable): a file holds about 2,000
                             tasks (the tasks-as-code budget), so import a larger store by groups
  --from <instant>           cut-over: tasks fire strictly after this ISO-8601 instant (the
                             moment Quartz is put on standby); see docs/MANUAL.md
  -o, --output <file>        the file to write (default stdout)`;

interface ImportArguments {
  url: string;
  tablePrefix: string;
  scheduler: string;
  output: string | null;
  options: import('../import-quartz/quartz-import').QuartzImportOptions;
}

function importArguments(args: string[]): ImportArguments {
  if (args[0] !== 'quartz') throw new UsageError(`baton import: unknown source "${args[0] ?? ''}" (baton import quartz …)`);
  const parsed: ImportArguments = {
    url: '',
    tablePrefix: 'QRTZ_',
    scheduler: 'QuartzScheduler',
    output: null,
    options: { executorApp: 'quartz', classes: {}, misfireThresholdMs: 60_000, defaultTimeZone: 'UTC', from: null, now: Date.now(), jobGroups: null },
  };
  for (let i = 1; i < args.length; i++) {
    const flag = args[i];
    const value = () => {
      const v = args[++i];
      if (v === undefined) throw new UsageError(`baton import quartz: ${flag} needs a value`);
      return v;
    };
    if (flag === '--url') parsed.url = value();
    else if (flag === '--table-prefix') parsed.tablePrefix = value();
    else if (flag === '--scheduler') parsed.scheduler = value();
    else if (flag === '--executor-app') parsed.options.executorApp = value();
    else if (flag === '--map') mapClass(parsed, value());
    else if (flag === '--mapping') readMapping(parsed, value());
    else if (flag === '--misfire-threshold-ms') parsed.options.misfireThresholdMs = wholeNumber(flag, value());
    else if (flag === '--time-zone') parsed.options.defaultTimeZone = value();
    else if (flag === '--from') parsed.options.from = instant(value());
    else if (flag === '--job-group') parsed.options.jobGroups = [...(parsed.options.jobGroups ?? []), value()];
    else if (flag === '-o' || flag === '--output') parsed.output = value();
    else throw new UsageError(`baton import quartz: unknown argument "${flag}"`);
  }
  if (!parsed.url) throw new UsageError('baton import quartz needs --url <mysql://user:pass@host:3306/database>');
  return parsed;
}

function mapClass(parsed: ImportArguments, spec: string): void {
  const match = /^([^=]+)=([^:]+)(?::(.+))?$/.exec(spec);
  if (!match) throw new UsageError(`baton import quartz: --map "${spec}": write <class>=<app>[:<handler>]`);
  parsed.options.classes[match[1]] = { executorApp: match[2], ...(match[3] ? { handler: match[3] } : {}) };
}

function readMapping(parsed: ImportArguments, file: string): void {
  const mapping = parse(readFileSync(file, 'utf8')) as unknown;
  if (typeof mapping !== 'object' || mapping === null) throw new UsageError(`baton import quartz: --mapping ${file}: must map job classes to { executorApp, handler }`);
  for (const [className, target] of Object.entries(mapping as Record<string, unknown>)) {
    const t = target as { executorApp?: unknown; handler?: unknown } | null;
    const ok = typeof t === 'object' && t !== null && ['executorApp', 'handler'].every((k) => t[k as keyof typeof t] === undefined || typeof t[k as keyof typeof t] === 'string');
    if (!ok) throw new UsageError(`baton import quartz: --mapping ${file}: "${className}" must be { executorApp: <app>, handler: <handler> }`);
    parsed.options.classes[className] = { ...(t!.executorApp ? { executorApp: t!.executorApp as string } : {}), ...(t!.handler ? { handler: t!.handler as string } : {}) };
  }
}

function wholeNumber(flag: string, value: string): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`baton import quartz: ${flag} must be a whole number of milliseconds (got "${value}")`);
  return Number(value);
}

function instant(value: string): number {
  const t = /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : NaN;
  if (!Number.isFinite(t)) throw new UsageError(`baton import quartz: --from must be an ISO-8601 instant such as 2027-03-01T02:00:00Z (got "${value}")`);
  return t;
}

export const importCommand: CliCommand = {
  name: 'import',
  summary: 'Write a tasks-as-code file from a Quartz JDBC JobStore (baton import quartz)',
  help: HELP,
  async run(args) {
    const parsed = importArguments(args);
    const { canonicalTimeZone } = await import('@baton/domain');
    if (canonicalTimeZone(parsed.options.defaultTimeZone) === null) throw new UsageError(`baton import quartz: --time-zone "${parsed.options.defaultTimeZone}" is not an IANA time zone`);
    const { TABLE_PREFIX_PATTERN, readQuartzStore } = await import('../import-quartz/read-quartz-store');
    if (!TABLE_PREFIX_PATTERN.test(parsed.tablePrefix)) throw new UsageError(`baton import quartz: --table-prefix "${parsed.tablePrefix}": letters, digits and _ only`);
    const { importQuartz } = await import('../import-quartz/quartz-import');
    const { importDocument, importReport } = await import('../import-quartz/import-document');
    let store;
    try {
      store = await readQuartzStore(parsed.url, parsed.tablePrefix, parsed.scheduler);
    } catch (error) {
      console.error(`baton: cannot read the Quartz tables ${parsed.tablePrefix}* at ${safeDatabaseUrl(parsed.url)}: ${(error as Error).message}`);
      process.exit(1);
    }
    if (store.triggers.length === 0 && store.jobs.length === 0) console.error(`baton: scheduler "${parsed.scheduler}" has no jobs in ${parsed.tablePrefix}JOB_DETAILS (check --scheduler and --table-prefix)`);
    const { from, now } = parsed.options;
    if (from !== null && from < now) console.error(`baton: warning: --from ${new Date(from).toISOString()} has passed: a task fires from the moment it is applied, so fire times between --from and the apply are made by neither scheduler (docs/MANUAL.md, "Moving in from Quartz")`);
    const imported = importQuartz(store, parsed.options);
    const document = importDocument(`Quartz scheduler "${parsed.scheduler}" (${parsed.tablePrefix}* at ${safeDatabaseUrl(parsed.url)})`, imported);
    if (parsed.output) writeFileSync(parsed.output, document);
    else process.stdout.write(document);
    console.error(importReport(imported).join('\n'));
  },
};
