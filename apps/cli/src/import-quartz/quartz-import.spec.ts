import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cronDstOf } from '@baton/domain';
import { QUARTZ_CRON_DST } from '../import/quartz-cron';
import { importDocument } from '../import/import-document';
import { keptNames } from '../import/kept-names';
import { importQuartz, type QuartzImportOptions } from './quartz-import';
import type { QuartzJob, QuartzStore, QuartzTrigger } from './quartz-rows';

const NOW = Date.parse('2027-01-01T00:00:00Z');
const OPTIONS: QuartzImportOptions = { executorApp: 'quartz', classes: {}, misfireThresholdMs: 60_000, defaultTimeZone: 'UTC', from: null, now: NOW, jobGroups: null, origin: 'quartz:scheduler/QRTZ_/Legacy', keptNames: new Map() };

const job = (name: string, extra: Partial<QuartzJob> = {}): QuartzJob => ({ name, group: 'DEFAULT', description: null, className: 'com.acme.Job', nonConcurrent: false, persistsData: false, requestsRecovery: false, jobData: null, ...extra });
const cron = (name: string, expression: string, extra: Partial<QuartzTrigger> = {}): QuartzTrigger => ({
  name,
  group: 'DEFAULT',
  jobName: name,
  jobGroup: 'DEFAULT',
  nextFireTime: null,
  priority: 5,
  state: 'WAITING',
  type: 'CRON',
  startTime: NOW,
  endTime: null,
  calendarName: null,
  misfireInstruction: 0,
  jobData: null,
  cron: { expression, timeZone: 'UTC' },
  simple: null,
  props: null,
  ...extra,
});
const store = (jobs: QuartzJob[], triggers: QuartzTrigger[], extra: Partial<QuartzStore> = {}): QuartzStore => ({ jobs, triggers, calendars: [], pausedGroups: [], ...extra });

describe('importQuartz', () => {
  it('one task per trigger, named by job (and trigger when the job has several), grouped by job group', () => {
    const result = importQuartz(
      store([job('report', { group: 'billing' }), job('solo')], [cron('a', '0 0 1 * * ?', { jobName: 'report', jobGroup: 'billing' }), cron('b c', '0 0 2 * * ?', { jobName: 'report', jobGroup: 'billing' }), cron('solo', '0 0 3 * * ?')]),
      OPTIONS,
    );
    expect(result.tasks.map((t) => [t.name, t.group])).toEqual([
      ['billing.report.a', 'billing'],
      ['billing.report.b-c', 'billing'],
      ['solo', 'default'],
    ]);
  });

  it('writes where each task came from; a job that gains a trigger keeps its task\'s name for the first one when re-imported into the same file', () => {
    const once = importQuartz(store([job('report'), job('by-hand')], [cron('t1', '0 0 1 * * ?', { jobName: 'report' })]), OPTIONS);
    expect(once.tasks.map((t) => [t.name, t.importedFrom])).toEqual([
      ['report', 'quartz:scheduler/QRTZ_/Legacy trigger DEFAULT.t1'],
      ['by-hand', 'quartz:scheduler/QRTZ_/Legacy job DEFAULT.by-hand'],
    ]);
    const twice = [cron('t1', '0 0 1 * * ?', { jobName: 'report' }), cron('t2', '0 0 13 * * ?', { jobName: 'report' })];
    // Imported alone, both are named after their trigger: the task "report" would stay beside "report.t1" (plan refuses that file).
    expect(importQuartz(store([job('report')], twice), OPTIONS).tasks.map((t) => t.name)).toEqual(['report.t1', 'report.t2']);
    const kept = keptNames(importDocument('Quartz', once, 'trigger'))!;
    const again = importQuartz(store([job('report'), job('by-hand')], twice), { ...OPTIONS, keptNames: kept });
    expect(again.tasks.map((t) => t.name)).toEqual(['report', 'report.t2', 'by-hand']);
    expect(again.entries[0].notes).toEqual(['named report as in the file this import replaces (-o); imported alone it would be report.t1']);
  });

  it("a cron trigger states Quartz's daylight-saving behaviour: a repeated time once, after the clocks went back; a skipped time not at all", () => {
    const result = importQuartz(store([job('a')], [cron('a', '0 30 1 * * ?', { cron: { expression: '0 30 1 * * ?', timeZone: 'Europe/London' } })]), OPTIONS);
    const trigger = result.tasks[0].trigger;
    expect(trigger).toEqual({ kind: 'CRON', expression: '0 30 1 * * *', timeZone: 'Europe/London' }); // Baton's defaults are Quartz's: left out
    expect(trigger.kind === 'CRON' && cronDstOf(trigger)).toEqual(QUARTZ_CRON_DST);
  });

  it('a job whose JOB_DATA is neither a JobDataMap nor a properties text is imported without it, its entry naming the job and why', () => {
    const corrupt = Buffer.from('00ed00057372', 'hex'); // a serialized map that lost its first byte
    const result = importQuartz(store([job('a', { group: 'billing', jobData: corrupt })], [cron('t', '0 0 1 * * ?', { jobName: 'a', jobGroup: 'billing', jobData: Buffer.from('region=eu\n') })]), OPTIONS);
    expect(result.tasks[0]).toMatchObject({ name: 'billing.a', params: { region: 'eu' } });
    expect(result.entries[0].notes).toContain('job billing.a\'s data not carried: it is neither a serialized JobDataMap (no AC ED 00 05 header) nor a properties text (control byte 0x00 at byte 0)');
    const alone = importQuartz(store([job('b', { jobData: corrupt })], []), OPTIONS);
    expect(alone.tasks[0]).not.toHaveProperty('params');
    expect(alone.entries[0].notes.join('\n')).toMatch(/job DEFAULT\.b's data not carried: it is neither/);
  });

  it('names that collide after cleaning get a suffix', () => {
    const result = importQuartz(store([job('a b'), job('a/b')], [cron('x', '0 0 1 * * ?', { jobName: 'a b' }), cron('y', '0 0 1 * * ?', { jobName: 'a/b' })]), OPTIONS);
    expect(result.tasks.map((t) => t.name)).toEqual(['a-b', 'a-b-2']);
  });

  it('maps job classes to executor apps and handlers; the rest take the default app and the class name', () => {
    const options = { ...OPTIONS, classes: { 'com.acme.Mapped': { executorApp: 'reports', handler: 'build' } } };
    const result = importQuartz(store([job('m', { className: 'com.acme.Mapped' }), job('u')], [cron('m', '0 0 1 * * ?'), cron('u', '0 0 1 * * ?')]), options);
    expect(result.tasks.map((t) => [t.executorApp, t.handler])).toEqual([
      ['reports', 'build'],
      ['quartz', 'com.acme.Job'],
    ]);
  });

  it('lists, never drops: completed triggers, unknown types, triggers whose job is missing, and fires already past', () => {
    const result = importQuartz(
      store(
        [job('done'), job('blob'), job('past')],
        [
          cron('done', '0 0 1 * * ?', { state: 'COMPLETE' }),
          cron('blob', '0 0 1 * * ?', { type: 'BLOB', cron: null }),
          cron('orphan', '0 0 1 * * ?', { jobName: 'gone' }),
          cron('past', '0 0 1 * * ?', { type: 'SIMPLE', cron: null, simple: { repeatCount: 0, repeatInterval: 0, timesTriggered: 0 }, startTime: NOW - 1 }),
        ],
      ),
      OPTIONS,
    );
    expect(result.tasks).toEqual([]);
    expect(result.entries.map((e) => [e.source, e.notes[0]])).toEqual([
      ['trigger DEFAULT.done', 'not imported: Quartz has completed it (it will not fire again)'],
      ['trigger DEFAULT.blob', expect.stringMatching(/^not imported: a custom trigger class/)],
      ['trigger DEFAULT.orphan', 'not imported: its job DEFAULT.gone is not in the store'],
      ['trigger DEFAULT.past', expect.stringMatching(/^not imported: it has no fire time after 2027-01-01T00:00:00.000Z/)],
    ]);
  });

  it("a trigger whose type's row is missing (deleted by hand) is listed, naming the table, not thrown at the import", () => {
    const result = importQuartz(
      store(
        ['c', 's', 'i', 'd', 'ok'].map((n) => job(n)),
        [cron('c', '', { cron: null }), cron('s', '', { type: 'SIMPLE', cron: null }), cron('i', '', { type: 'CAL_INT', cron: null }), cron('d', '', { type: 'DAILY_I', cron: null }), cron('ok', '0 0 1 * * ?')],
      ),
      { ...OPTIONS, tablePrefix: 'LEGACY_QRTZ_' },
    );
    expect(result.tasks.map((t) => t.name)).toEqual(['ok']);
    expect(result.entries.slice(0, 4).map((e) => [e.source, e.notes])).toEqual([
      ['trigger DEFAULT.c', ["not imported: its LEGACY_QRTZ_CRON_TRIGGERS row is missing (a CRON trigger's schedule is there); Quartz cannot load it either"]],
      ['trigger DEFAULT.s', ["not imported: its LEGACY_QRTZ_SIMPLE_TRIGGERS row is missing (a SIMPLE trigger's schedule is there); Quartz cannot load it either"]],
      ['trigger DEFAULT.i', ["not imported: its LEGACY_QRTZ_SIMPROP_TRIGGERS row is missing (a CAL_INT trigger's schedule is there); Quartz cannot load it either"]],
      ['trigger DEFAULT.d', ["not imported: its LEGACY_QRTZ_SIMPROP_TRIGGERS row is missing (a DAILY_I trigger's schedule is there); Quartz cannot load it either"]],
    ]);
  });

  it('pauses: a paused trigger, a paused group, pauseAll, and the ERROR state', () => {
    const jobs = ['a', 'b', 'c', 'd'].map((n) => job(n));
    const triggers = [cron('a', '0 0 1 * * ?', { state: 'PAUSED' }), cron('b', '0 0 1 * * ?', { group: 'night' }), cron('c', '0 0 1 * * ?', { state: 'ERROR' }), cron('d', '0 0 1 * * ?')];
    expect(importQuartz(store(jobs, triggers, { pausedGroups: ['night'] }), OPTIONS).tasks.map((t) => t.paused === true)).toEqual([true, true, true, false]);
    expect(importQuartz(store(jobs, triggers, { pausedGroups: ['_$_ALL_GROUPS_PAUSED_$_'] }), OPTIONS).tasks.map((t) => t.paused === true)).toEqual([true, true, true, true]);
  });

  it("priority: Quartz's 5 is Baton's 0, kept within Baton's range (and listed when clamped)", () => {
    const result = importQuartz(store([job('a'), job('b'), job('c')], [cron('a', '0 0 1 * * ?', { priority: 7 }), cron('b', '0 0 1 * * ?', { priority: 1000 }), cron('c', '0 0 1 * * ?', { priority: -500 })]), OPTIONS);
    expect(result.tasks.map((t) => t.priority)).toEqual([2, 100, -100]);
    expect(importQuartz(store([job('c')], [cron('c', '0 0 1 * * ?')]), OPTIONS).tasks[0]).not.toHaveProperty('priority'); // 0, the default
    expect(result.entries[1].notes).toEqual(["priority 1000 (Baton 995, Quartz's 5 being Baton's 0) is above Baton's highest, 100: imported as 100"]);
    expect(result.entries[2].notes).toEqual(["priority -500 (Baton -505, Quartz's 5 being Baton's 0) is below Baton's lowest, -100: imported as -100"]);
  });

  it('@PersistJobDataAfterExecution and requestsRecovery are not dropped silently: each entry of the job says what Baton does instead', () => {
    const result = importQuartz(store([job('cursor', { persistsData: true }), job('recover', { requestsRecovery: true }), job('plain'), job('by-hand', { persistsData: true, requestsRecovery: true })], [cron('cursor', '0 0 1 * * ?'), cron('recover', '0 0 1 * * ?'), cron('plain', '0 0 1 * * ?')]), OPTIONS);
    expect(result.entries.map((e) => [e.source, e.notes.map((n) => n.replace(/ not carried: .*/, ''))])).toEqual([
      ['trigger DEFAULT.cursor', ['@PersistJobDataAfterExecution']],
      ['trigger DEFAULT.recover', ['requests recovery']],
      ['trigger DEFAULT.plain', []],
      ['job DEFAULT.by-hand', ['no trigger: imported as a MANUAL task (run by hand or as a dependency)', '@PersistJobDataAfterExecution', 'requests recovery']],
    ]);
    expect(result.entries[0].notes[0]).toMatch(/params are the same at every run, so a handler that needs something from run to run \(a cursor, the last id done\) keeps it itself/);
    expect(result.entries[1].notes[0]).toMatch(/a run whose executor died fails — it runs again only by the task's retry policy \(retry\.maxAttempts, 1 by default: raise it\)$/);
  });

  it('@DisallowConcurrentExecution becomes FORBID, with the difference listed', () => {
    const result = importQuartz(store([job('a', { nonConcurrent: true })], [cron('a', '0 0 1 * * ?')]), OPTIONS);
    expect(result.tasks[0].concurrencyPolicy).toBe('FORBID');
    expect(result.entries[0].notes.join()).toMatch(/Quartz delays a fire while the job runs/);
  });

  it('a simple trigger: its repeat count and exclusive end time bound the grid (endAt)', () => {
    const simple = (repeatCount: number, endTime: number | null) => cron('s', '', { type: 'SIMPLE', cron: null, simple: { repeatCount, repeatInterval: 60_000, timesTriggered: 0 }, endTime });
    expect(importQuartz(store([job('s')], [simple(10, null)]), OPTIONS).tasks[0]).toMatchObject({ trigger: { kind: 'FIXED_RATE', intervalMs: 60_000 }, startAt: NOW, endAt: NOW + 600_000 });
    expect(importQuartz(store([job('s')], [simple(-1, NOW + 120_000)]), OPTIONS).tasks[0]).toMatchObject({ endAt: NOW + 119_999 });
    expect(importQuartz(store([job('s')], [simple(-1, null)]), OPTIONS).tasks[0]).not.toHaveProperty('endAt');
    // Interval 0 with repeats: a row Quartz would not have stored, not a one-shot whose time has passed.
    expect(importQuartz(store([job('s')], [cron('s', '', { type: 'SIMPLE', cron: null, simple: { repeatCount: -1, repeatInterval: 0, timesTriggered: 0 }, startTime: NOW - 1 })]), OPTIONS).entries[0]).toMatchObject({
      task: null,
      notes: ['not imported: it repeats (repeat count -1) every 0 ms: an interval of 0 is not a schedule (Quartz refuses it too: "Repeat Interval cannot be zero.")'],
    });
    expect(importQuartz(store([job('s')], [cron('s', '', { type: 'SIMPLE', cron: null, simple: { repeatCount: 0, repeatInterval: 0, timesTriggered: 0 }, startTime: NOW + 60_000 })]), OPTIONS).tasks[0].trigger).toEqual({ kind: 'ONCE', at: NOW + 60_000 });
    const everyCentury = cron('s', '', { type: 'SIMPLE', cron: null, simple: { repeatCount: -1, repeatInterval: 100 * 365 * 86_400_000, timesTriggered: 0 }, endTime: null });
    expect(importQuartz(store([job('s')], [everyCentury]), OPTIONS).entries[0]).toMatchObject({ task: null, notes: [expect.stringMatching(/^not imported: it repeats every 3153600000000 ms; Baton's longest interval/)] });
  });

  it('a calendar-interval trigger of 1 day becomes a cron at its local time; 3 days is listed', () => {
    const calInt = (interval: number, unit: string) => cron('c', '', { type: 'CAL_INT', cron: null, startTime: Date.parse('2027-01-01T08:15:00Z'), props: { str1: unit, str2: 'Europe/Berlin', str3: null, int1: interval, int2: 0, long1: 0, bool1: false, bool2: false } });
    expect(importQuartz(store([job('c')], [calInt(1, 'DAY')]), OPTIONS).tasks[0].trigger).toEqual({ kind: 'CRON', expression: '0 15 9 * * *', timeZone: 'Europe/Berlin' });
    expect(importQuartz(store([job('c')], [calInt(3, 'DAY')]), OPTIONS).entries[0]).toMatchObject({ task: null, notes: [expect.stringMatching(/calendar interval of 3 days/)] });
    expect(importQuartz(store([job('c')], [calInt(90, 'MINUTE')]), OPTIONS).tasks[0].trigger).toEqual({ kind: 'FIXED_RATE', intervalMs: 5_400_000 });
    // Past Baton's longest interval: listed, not written into a file that plan and apply would refuse whole.
    expect(importQuartz(store([job('c')], [calInt(100_000, 'HOUR')]), OPTIONS).entries[0]).toMatchObject({ task: null, notes: [expect.stringMatching(/^not imported: interval 100000 HOUR: Baton's longest interval is 315360000000 ms/)] });
  });

  it('a trigger on a calendar that cannot be imported is listed, and so is the reason', () => {
    const annual = readFileSync(join(__dirname, 'fixtures/annual-calendar.ser'));
    const calendars = [{ name: 'weird', blob: Buffer.from('nope') }, { name: 'annual', blob: annual }];
    const result = importQuartz(store([job('a'), job('b'), job('c')], [cron('a', '0 0 1 * * ?', { calendarName: 'weird' }), cron('b', '0 0 1 * * ?', { calendarName: 'annual' }), cron('c', '0 0 1 * * ?', { calendarName: 'gone' })], { calendars }), OPTIONS);
    expect(result.entries.map((e) => e.notes)).toEqual([
      [expect.stringMatching(/^not imported: its calendar "weird" cannot be read: its serialized form is corrupt or of a kind not read \(/)],
      ['not imported: its calendar "annual" is an AnnualCalendar: Baton calendars exclude whole dates, as Quartz\'s HolidayCalendar does'],
      ['not imported: its calendar "gone" is not in the store'],
    ]);
  });

  it('--job-group: only those groups\' jobs and their triggers', () => {
    const result = importQuartz(store([job('a', { group: 'x' }), job('b', { group: 'y' })], [cron('a', '0 0 1 * * ?', { jobGroup: 'x' }), cron('b', '0 0 1 * * ?', { jobGroup: 'y', jobName: 'b' })]), { ...OPTIONS, jobGroups: ['y'] });
    expect(result.entries.map((e) => e.source)).toEqual(['trigger DEFAULT.b']);
    expect(result.tasks.map((t) => t.name)).toEqual(['y.b']);
  });

  it("a Quartz job has no timeout: every task's timeoutMs is Baton's longest, not its 5-minute default, and the header says so once", () => {
    const result = importQuartz(store([job('a'), job('by-hand')], [cron('a', '0 0 1 * * ?')]), OPTIONS);
    expect(result.tasks.map((t) => [t.name, t.timeoutMs])).toEqual([
      ['a', 2_147_483_647],
      ['by-hand', 2_147_483_647],
    ]);
    expect(importDocument('Quartz', result, 'trigger')).toContain("\n# Timeouts: a Quartz job has none, so every task's timeoutMs is 2,147,483,647 ms (24.9 days), Baton's longest, not Baton's default of 5 minutes, which would end a longer run TIMED_OUT. Lower it where a job should be stopped sooner.\n");
  });

  it('params whose names are secrets (Baton\'s rule: password, token, key…) are written as they are, and the entry and the header name them', () => {
    const data = (text: string) => Buffer.from(text, 'latin1'); // the properties form: what Quartz's useProperties writes
    const result = importQuartz(
      store([job('db', { jobData: data('dbPassword=s3cret\nregion=eu\n') }), job('plain', { jobData: data('region=eu\n') }), job('hand', { jobData: data('apiToken=t0k\n') })], [cron('db', '0 0 1 * * ?', { jobData: data('key=k3y\n') }), cron('plain', '0 0 1 * * ?')]),
      OPTIONS,
    );
    expect(result.tasks[0].params).toEqual({ dbPassword: 's3cret', region: 'eu', key: 'k3y' }); // in clear: the tenant's own data
    expect(result.entries.map((e) => [e.source, e.notes.filter((n) => n.startsWith('secret'))])).toEqual([
      ['trigger DEFAULT.db', ['secret-named params written in clear: dbPassword, key']],
      ['trigger DEFAULT.plain', []],
      ['job DEFAULT.hand', ['secret-named params written in clear: apiToken']],
    ]);
    expect(result.notes.at(-1)).toMatch(/^Secrets: 2 task\(s\) have secret-named params \(password, token, key…\), written in this file in clear as the source held them \(each entry names them\)\. /);
    expect(importQuartz(store([job('plain')], [cron('plain', '0 0 1 * * ?')]), OPTIONS).notes.join('\n')).not.toMatch(/secret/i);
  });

  it('params past Baton\'s limit (64,000 bytes as JSON): the trigger or job is listed, not written into a file plan and apply would refuse whole', () => {
    const data = (bytes: number) => Buffer.from(`text=${'x'.repeat(bytes)}\n`, 'latin1');
    const result = importQuartz(store([job('big', { jobData: data(64_000) }), job('fits', { jobData: data(63_000) }), job('alone', { jobData: data(70_000) })], [cron('big', '0 0 1 * * ?'), cron('fits', '0 0 1 * * ?')]), OPTIONS);
    expect(result.tasks.map((t) => t.name)).toEqual(['fits']);
    expect(result.entries.map((e) => [e.source, e.task, e.notes])).toEqual([
      ['trigger DEFAULT.big', null, ["not imported: params is 64011 bytes as JSON; at most 64000 are allowed (a task's params; plan and apply would refuse the whole file with it)"]],
      ['trigger DEFAULT.fits', 'fits', []],
      ['job DEFAULT.alone', null, [expect.stringMatching(/^not imported: params is 70011 bytes as JSON; at most 64000 are allowed/)]],
    ]);
  });

  it('a job without a trigger is a MANUAL task', () => {
    expect(importQuartz(store([job('by-hand')], []), OPTIONS).tasks).toEqual([expect.objectContaining({ name: 'by-hand', trigger: { kind: 'MANUAL' } })]);
  });

  it('--from: the first fire strictly after the instant, on the trigger\'s own grid', () => {
    const simple = cron('s', '', { type: 'SIMPLE', cron: null, simple: { repeatCount: -1, repeatInterval: 60_000, timesTriggered: 0 }, nextFireTime: NOW + 3 * 60_000 });
    const result = importQuartz(store([job('s'), job('h')], [simple, cron('h', '0 0 * * * ?', { nextFireTime: NOW + 3_600_000, jobName: 'h', name: 'h' })]), { ...OPTIONS, from: NOW + 2 * 60_000 + 30_000 });
    expect(result.tasks.map((t) => t.startAt)).toEqual([NOW + 3 * 60_000, NOW + 3_600_000]);
    expect(result.entries.flatMap((e) => e.notes)).toEqual([]);
  });

  it('--from, imported ahead of the instant: a next fire time still to come is Quartz\'s to make; one that had passed when read is owed', () => {
    const every = (name: string, nextFireTime: number) => cron(name, '0 * * * * ?', { nextFireTime, jobName: name, name });
    const from = NOW + 5 * 60_000;
    const result = importQuartz(store([job('ahead'), job('owed')], [every('ahead', NOW + 60_000), every('owed', NOW - 60_000)]), { ...OPTIONS, from });
    expect(result.tasks.map((t) => t.startAt)).toEqual([from + 60_000, from + 60_000]);
    expect(result.entries.map((e) => e.notes)).toEqual([[], [expect.stringMatching(/^Quartz's next fire time \S+ had passed when read and is at or before the cut-over instant: Quartz owes that fire/)]]);
  });
});
