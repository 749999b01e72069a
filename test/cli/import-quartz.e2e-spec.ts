/**
 * `baton import quartz` against a real Quartz: Debian's libquartz2-java (2.3.2) with
 * libmariadb-java. QuartzCatalogue.java creates Quartz's own tables (under a custom prefix, for
 * a custom scheduler name) on a private database of the test MariaDB, schedules a catalogue of
 * triggers of every kind, and prints the next 100 fire times Quartz computes for each. The
 * import of that store must be a file `baton plan` and `baton apply` take as it is, list every
 * trigger it does not carry with the reason, and give each imported task Baton's fire times
 * (the domain's, as the planner computes them) equal to Quartz's — across DST changes, month
 * ends, leap days, end times and repeat counts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnection } from 'mysql2/promise';
import { parse } from 'yaml';
import { firstFireTime, nextFireTimes, type Schedule } from '@baton/domain';
import { readConfigFile } from '../../apps/console/src/config-as-code/config-file';
import { listenOnLoopback, seedTenant, startConsole, type ConsoleTestApp, type SeededTenant } from '../console/console-test-kit';
import { useTestDatabase } from '../support/databases';
import { importHeader } from './import-header';
import { runBaton } from './run-baton';
import { createMysqlTestDatabase, dropMysqlDatabase, mysqlDatabaseUrl } from '../support/mysql-admin';

const JARS = ['quartz2.jar', 'HikariCP.jar', 'slf4j-api.jar', 'slf4j-nop.jar', 'mariadb-java-client.jar'].map((j) => `/usr/share/java/${j}`);
const PREFIX = 'LEGACY_QRTZ_';
const SCHEDULER = 'Legacy';

const HOUR = 3_600_000;

describe('baton import quartz (against Quartz 2.3.2 on MariaDB)', () => {
  const db = useTestDatabase('sqlite');
  const dir = mkdtempSync(join(tmpdir(), 'baton-import-quartz-'));
  const file = join(dir, 'tasks.yaml');
  const server = process.env.BATON_TEST_MYSQL_URL!;
  let quartzDb: string;
  /** Trigger (group.name) → Quartz's next 100 fire times. */
  const quartzFires = new Map<string, number[]>();
  let checksums: { before: unknown; after: unknown };
  let t: ConsoleTestApp;
  let url: string;
  let tenant: SeededTenant;

  beforeAll(async () => {
    const classes = join(dir, 'classes');
    execFileSync('javac', ['-d', classes, '-cp', JARS.join(':'), join(__dirname, 'quartz/QuartzCatalogue.java')], { stdio: 'pipe' });
    quartzDb = await createMysqlTestDatabase(server);
    const jdbc = new URL(mysqlDatabaseUrl(server, quartzDb));
    const out = execFileSync('java', ['-cp', [classes, ...JARS].join(':'), 'QuartzCatalogue', `jdbc:mariadb://${jdbc.host}${jdbc.pathname}`, decodeURIComponent(jdbc.username), decodeURIComponent(jdbc.password), PREFIX, SCHEDULER], { encoding: 'utf8', timeout: 120_000 });
    for (const line of out.split('\n')) {
      const m = /^FIRES (\S+) ([\d,]*)$/.exec(line);
      if (m) quartzFires.set(m[1], m[2] ? m[2].split(',').map(Number) : []);
    }
    const before = await quartzChecksums();
    const imported = await runBaton({}, 'import', 'quartz', '--url', mysqlDatabaseUrl(server, quartzDb), '--table-prefix', PREFIX, '--scheduler', SCHEDULER, '--map', 'QuartzCatalogue$CleanupJob=maintenance:cleanup', '-o', file);
    if (imported.code !== 0) throw new Error(`baton import quartz failed:\n${imported.stderr}`);
    checksums = { before, after: await quartzChecksums() };
    t = await startConsole(db.dataSource);
    url = await listenOnLoopback(t);
    tenant = await seedTenant(t, db.dataSource, 'acme');
  }, 600_000);
  afterAll(async () => {
    await t?.close();
    if (quartzDb) await dropMysqlDatabase(server, quartzDb);
    rmSync(dir, { recursive: true, force: true });
  });

  /** CHECKSUM TABLE of every Quartz table: the import must leave them as they were. */
  const quartzChecksums = async () => {
    const conn = await createConnection({ uri: mysqlDatabaseUrl(server, quartzDb) });
    try {
      const tables = ['JOB_DETAILS', 'TRIGGERS', 'CRON_TRIGGERS', 'SIMPLE_TRIGGERS', 'SIMPROP_TRIGGERS', 'BLOB_TRIGGERS', 'CALENDARS', 'PAUSED_TRIGGER_GRPS', 'FIRED_TRIGGERS', 'SCHEDULER_STATE', 'LOCKS'];
      return (await conn.query(`CHECKSUM TABLE ${tables.map((name) => `\`${PREFIX}${name}\``).join(', ')}`))[0];
    } finally {
      await conn.end();
    }
  };

  /** The file's header: trigger → task (null: not imported) and its notes. */
  const entries = (path = file) => importHeader(readFileSync(path, 'utf8'));

  it('writes a file baton plan and apply take as it is; every trigger is imported or listed with the reason', async () => {
    const env = { BATON_API_URL: url, BATON_API_KEY: tenant.adminKey['X-API-Key'] };
    const plan = await runBaton(env, 'plan', '-f', file);
    expect(plan.code, plan.stderr).toBe(0);
    const listed = entries();
    expect([...listed.keys()].filter((k) => k.startsWith('trigger ')).sort()).toEqual([...quartzFires.keys()].map((k) => `trigger ${k}`).sort());
    const tasks = [...listed.values()].filter((e) => e.task !== null);
    expect(plan.stdout).toContain(`${tasks.length + 1} to create, 0 to update, 0 to delete.`); // + the calendar
    for (const [source, entry] of listed) if (entry.task === null) expect(entry.notes.find((note) => note.startsWith('not imported: ')), source).toMatch(/^not imported: ./);
    const notImported = [...listed].filter(([, e]) => e.task === null).map(([source]) => source).sort();
    expect(notImported).toEqual(['trigger DEFAULT.daily-calendar-0230-berlin', 'trigger DEFAULT.every-50ms', 'trigger DEFAULT.monthly-calendar-31st', 'trigger DEFAULT.office-hours-every-20-min', 'trigger DEFAULT.three-days-before-month-end']);

    expect(checksums.after).toEqual(checksums.before); // read-only

    const apply = await runBaton(env, 'apply', '-f', file);
    expect(apply.code, apply.stderr).toBe(0);
    const again = await runBaton(env, 'plan', '-f', file);
    expect(again.stdout).toContain('No changes');
  }, 240_000); // three runs of bin/baton.js, as test/cli/tasks-as-code allows them

  it('an import that matches nothing (--scheduler or --job-group naming none) is refused, exit 2, no file written, naming what the tables hold: applied with --prune, tasks: [] would delete every task', async () => {
    const none = join(dir, 'none.yaml');
    const quartz = ['import', 'quartz', '--url', mysqlDatabaseUrl(server, quartzDb), '--table-prefix', PREFIX, '-o', none];
    const scheduler = await runBaton({}, ...quartz, '--scheduler', 'Nope');
    expect(scheduler.code).toBe(2);
    expect(scheduler.stderr).toMatch(/^baton import quartz: scheduler "Nope" has no jobs in LEGACY_QRTZ_JOB_DETAILS; the schedulers there: Legacy \(\d+ jobs\)\. Name one with --scheduler \(org\.quartz\.scheduler\.instanceName\)\. No file written\.$/m);
    const group = await runBaton({}, ...quartz, '--scheduler', SCHEDULER, '--job-group', 'nope');
    expect(group.code).toBe(2);
    expect(group.stderr).toMatch(/^baton import quartz: no job of job group\(s\) "nope" in scheduler "Legacy"; its job groups: DEFAULT \(\d+ jobs\), reports \(1 job\)\. Name them with --job-group\. No file written\.$/m);
    expect(() => readFileSync(none)).toThrow(/ENOENT/);
    // Some names matched: those are imported, the others named in a warning.
    const some = await runBaton({}, ...quartz, '--scheduler', SCHEDULER, '--job-group', 'nope', '--job-group', 'reports', '--job-group', 'Reports');
    expect(some.code, some.stderr).toBe(0);
    expect(some.stderr).toMatch(/^baton: warning: --job-group "nope", "Reports" matched no job group of scheduler "Legacy"; its job groups: DEFAULT \(\d+ jobs\), reports \(1 job\)\. The other --job-group names are imported\.$/m);
    expect([...new Set((parse(readFileSync(none, 'utf8')) as { tasks: Array<{ group: string }> }).tasks.map((t) => t.group))]).toEqual(['reports']);
  }, 60_000);

  /**
   * Each imported trigger's fire times in Baton (the domain's, as the planner computes them)
   * against Quartz's fire times after `after`: compared as sets up to the earlier of the two
   * lists' ends (an extra or a skipped fire shifts the rest) — across the daylight-saving
   * changes the catalogue's triggers cross too (QuartzCatalogue.java), where the imported tasks
   * keep Quartz's behaviour (their repeatedTime and skippedTime).
   */
  const compareWithQuartz = (path: string, after = -Infinity) => {
    const { file: config, errors } = readConfigFile(parse(readFileSync(path, 'utf8')), 'acme');
    expect(errors).toEqual([]);
    const byName = new Map(config!.tasks.map((task) => [task.name, task]));
    const result = { compared: [] as string[], mismatches: [] as string[], firsts: new Map<string, number | null>() };
    for (const [source, entry] of entries(path)) {
      if (entry.task === null || !source.startsWith('trigger ')) continue;
      const trigger = source.slice('trigger '.length);
      const task = byName.get(entry.task)!;
      const calendar = config!.calendars.find((c) => c.name === task.calendarName) ?? null;
      const schedule: Schedule = { trigger: task.trigger, startAt: task.startAt, endAt: task.endAt, maxFires: task.maxFires, fireCount: 0, calendar, createdAt: task.startAt };
      const expected = quartzFires.get(trigger)!.filter((f) => f > after);
      const first = firstFireTime(schedule, task.startAt ?? expected[0]);
      const fires = first === null ? [] : [first, ...nextFireTimes(schedule, first, expected.length - 1)];
      result.firsts.set(trigger, first);
      const until = Math.min(fires.at(-1) ?? -Infinity, expected.at(-1) ?? -Infinity);
      const onlyOne = [...fires.filter((f) => !expected.includes(f)), ...expected.filter((f) => !fires.includes(f))].filter((f) => f <= until);
      if (onlyOne.length > 0 || fires.length !== expected.length) {
        result.mismatches.push(`${trigger}: ${fires.length} fires (Quartz ${expected.length}); only in one: ${onlyOne.slice(0, 4).map((f) => new Date(f).toISOString()).join(', ')}`);
      }
      // No further fire when Quartz has none within 100 (a repeat count or an end time).
      if (quartzFires.get(trigger)!.length < 100 && expected.length > 0) expect(nextFireTimes(schedule, expected.at(-1)!, 1), trigger).toEqual([]);
      result.compared.push(trigger);
    }
    return result;
  };

  it("gives every imported trigger Baton's next 100 fire times equal to real Quartz's", () => {
    const { compared, mismatches } = compareWithQuartz(file);
    expect(mismatches).toEqual([]);
    expect(compared.length).toBeGreaterThanOrEqual(24);
  });

  it('carries job data, job classes, priorities, pauses, misfire instructions and the holiday calendar', () => {
    const { file: config } = readConfigFile(parse(readFileSync(file, 'utf8')), 'acme');
    const task = (name: string) => config!.tasks.find((t) => t.name === name)!;
    expect(task('daily-0230-berlin')).toMatchObject({ executorApp: 'quartz', handler: 'QuartzCatalogue$ReportJob', params: { region: 'eu', batch: 500, dryRun: false, ratio: 0.25 }, priority: 0, paused: false, misfirePolicy: 'FIRE_ONCE_NOW', misfireThresholdMs: 60_000, timeoutMs: 2_147_483_647 });
    expect(task('every-90s')).toMatchObject({ executorApp: 'maintenance', handler: 'cleanup', trigger: { kind: 'FIXED_RATE', intervalMs: 90_000 }, misfirePolicy: 'SKIP' });
    // The trigger's job data wins over the job's (Quartz's merged JobDataMap); the job's other triggers keep the job's.
    expect(task('reports.shared-report.evening')).toMatchObject({ group: 'reports', params: { format: 'csv' }, paused: true });
    expect(task('reports.shared-report.morning')).toMatchObject({ params: { format: 'pdf' }, priority: 2, paused: false });
    // Java's modified UTF-8 (an emoji as two 3-byte surrogates, NUL as C0 80) read as what was put; a secret-named value in clear, its entry and the header saying so.
    expect(task('reports.shared-report.morning').params).toEqual({ format: 'pdf', message: 'deploy 🚀 done', separator: '\u0000', dbPassword: 's3cret' });
    expect(entries(file).get('trigger reports.morning')!.notes).toContain('secret-named params written in clear: dbPassword');
    expect(readFileSync(file, 'utf8')).toMatch(/^# Secrets: 2 task\(s\) have secret-named params /m); // the job's two triggers
    expect(task('weekdays-paris').paused).toBe(true);
    expect(task('do-nothing-on-misfire').misfirePolicy).toBe('SKIP');
    expect(task('ignore-misfires').misfirePolicy).toBe('FIRE_ALL_MISSED');
    expect(task('simple-next-with-remaining').misfirePolicy).toBe('SKIP');
    expect(task('hourly-10-repeats').misfirePolicy).toBe('FIRE_ONCE_NOW');
    expect(entries(file).get('trigger DEFAULT.hourly-10-repeats')!.notes.join('\n')).toMatch(/RESCHEDULE_NOW_WITH_EXISTING_REPEAT_COUNT/);
    expect(task('one-shot').trigger.kind).toBe('ONCE');
    expect(task('run-by-hand')).toMatchObject({ trigger: { kind: 'MANUAL' }, executorApp: 'maintenance', handler: 'cleanup' });
    expect(config!.calendars).toEqual([{ name: 'holidays', timeZone: 'Europe/Berlin', dates: expect.any(Array) }]);
    expect(config!.calendars[0].dates).toHaveLength(3);
    expect(task('weekdays-except-holidays').calendarName).toBe('holidays');
  });

  it('--from <instant>: every task fires first at its first Quartz fire time strictly after the cut-over, and on as Quartz would', async () => {
    const from = quartzFires.get('DEFAULT.hourly-10-repeats')![0] + 24 * HOUR; // a day into the catalogue, on the hour: some triggers fire at that very instant
    const cutOver = join(dir, 'cut-over.yaml');
    const imported = await runBaton({}, 'import', 'quartz', '--url', mysqlDatabaseUrl(server, quartzDb), '--table-prefix', PREFIX, '--scheduler', SCHEDULER, '--from', new Date(from).toISOString(), '-o', cutOver);
    expect(imported.code, imported.stderr).toBe(0);
    const { compared, mismatches, firsts } = compareWithQuartz(cutOver, from);
    expect(mismatches).toEqual([]);
    expect(compared.length).toBeGreaterThanOrEqual(20);
    for (const trigger of compared) expect(firsts.get(trigger), trigger).toBe(quartzFires.get(trigger)!.find((f) => f > from));
    expect(firsts.get('DEFAULT.hourly-until-inclusive-end')).toBe(from + HOUR); // it fires at `from` in Quartz, not again in Baton
    // Triggers that end before the cut-over are listed, not imported.
    expect(entries(cutOver).get('trigger DEFAULT.quarter-hour-until-end')).toMatchObject({ task: null, notes: [expect.stringMatching(/^not imported: it has no fire time after/)] });
  }, 240_000);
});
