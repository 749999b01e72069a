import { describe, expect, it } from 'vitest';
import { validateTask } from '@baton/domain';
import { importXxlJob, type XxlJobImportOptions } from './xxl-job-import';
import { importDocument } from '../import/import-document';
import type { XxlJob, XxlJobTables } from './xxl-job-rows';

const NOW = Date.parse('2027-01-01T00:00:00Z');
const OPTIONS: XxlJobImportOptions = { mapping: {}, timeZone: 'Asia/Shanghai', shards: null, from: null, now: NOW, apps: null, origin: 'xxl-job:xxl_job/xxl_job_', keptNames: new Map() };

const job = (id: number, extra: Partial<XxlJob> = {}): XxlJob => ({
  id,
  jobGroup: 1,
  description: '',
  author: null,
  alarmEmail: null,
  scheduleType: 'CRON',
  scheduleConf: '0 0 2 * * ?',
  misfireStrategy: 'DO_NOTHING',
  routeStrategy: 'FIRST',
  handler: 'demoJobHandler',
  param: null,
  blockStrategy: 'SERIAL_EXECUTION',
  timeoutSeconds: 0,
  failRetryCount: 0,
  glueType: 'BEAN',
  childJobIds: null,
  triggerStatus: 1,
  triggerNextTime: 0,
  addTime: null,
  ...extra,
});
const tables = (jobs: XxlJob[]): XxlJobTables => ({ groups: [{ id: 1, appName: 'sample-executor', title: 'Sample' }, { id: 2, appName: 'billing', title: 'Billing' }], jobs });
const only = (j: XxlJob, options: Partial<XxlJobImportOptions> = {}) => {
  const result = importXxlJob(tables([j]), { ...OPTIONS, ...options });
  return { task: result.tasks[0], entry: result.entries[0] };
};

describe('importXxlJob', () => {
  it('a BEAN cron job: a task named <handler>-<id> of the group\'s app, its cron in Baton\'s dialect in the admin\'s zone; every task valid', () => {
    const result = importXxlJob(tables([job(1), job(2, { jobGroup: 2, scheduleConf: '0 15 10 ? * MON-FRI', handler: 'closeDay', param: '{"region":"eu"}' })]), OPTIONS);
    expect(result.tasks[0]).toMatchObject({ name: 'demoJobHandler-1', group: 'sample-executor', executorApp: 'sample-executor', handler: 'demoJobHandler', trigger: { kind: 'CRON', expression: '0 0 2 * * *', timeZone: 'Asia/Shanghai' }, misfirePolicy: 'SKIP', concurrencyPolicy: 'FORBID', timeoutMs: 2_147_483_647 });
    expect(result.tasks[0]).not.toHaveProperty('params');
    expect(result.tasks[1]).toMatchObject({ name: 'closeDay-2', executorApp: 'billing', params: '{"region":"eu"}', trigger: { expression: '0 15 10 * * 1,2,3,4,5' } });
    for (const task of result.tasks) expect(validateTask(task)).toEqual([]);
  });

  it('FIX_RATE keeps the admin\'s grid, NONE (and an unknown type, as XXL-JOB reads it) is MANUAL, crons Baton cannot follow are listed', () => {
    const rate = only(job(1, { scheduleType: 'FIX_RATE', scheduleConf: '30', triggerNextTime: NOW - 45_000, addTime: Date.parse('2026-06-01T08:00:10Z') }));
    expect(rate.task).toMatchObject({ trigger: { kind: 'FIXED_RATE', intervalMs: 30_000 }, startAt: Date.parse('2026-06-01T08:00:15Z') });
    expect(only(job(2, { scheduleType: 'NONE', scheduleConf: null, triggerStatus: 0 })).task).toMatchObject({ trigger: { kind: 'MANUAL' } });
    expect(only(job(2, { scheduleType: 'NONE', triggerStatus: 0 })).task).not.toHaveProperty('paused');
    const unknown = only(job(3, { scheduleType: 'FIX_DELAY', scheduleConf: '10' }));
    expect(unknown.task.trigger).toEqual({ kind: 'MANUAL' });
    expect(unknown.entry.notes[0]).toMatch(/^schedule type "FIX_DELAY" is unknown; XXL-JOB reads it as NONE/);
    expect(only(job(4, { scheduleType: 'FIX_RATE', scheduleConf: '0' })).entry.notes[0]).toMatch(/^not imported: fix rate "0"/);
    // No cron or interval at all (a row edited by hand): said so, not quoted as a cron of 1 field.
    expect(only(job(4, { scheduleConf: null })).entry.notes[0]).toBe('not imported: it is a CRON job with no cron (schedule_conf, job_cron before 2.3, is NULL or empty)');
    expect(only(job(4, { scheduleType: 'FIX_RATE', scheduleConf: ' ' })).entry.notes[0]).toBe('not imported: it is a FIX_RATE job with no interval (schedule_conf is NULL or empty)');
    expect(only(job(4, { scheduleType: 'FIX_RATE', scheduleConf: '99999999999' })).entry.notes[0]).toMatch(/^not imported: fix rate 99999999999 s: Baton's longest interval is 315360000000 ms/);
    expect(only(job(5, { scheduleConf: '0 0 2 L-3 * ?' })).entry.notes[0]).toMatch(/^not imported: day-of-month "L-3"/);
    expect(only(job(6, { scheduleConf: '0 0 2 * * ? 2020' })).entry.notes[0]).toMatch(/^not imported: it has no fire time after/);
    // Crons XXL-JOB's Quartz CronExpression refuses (a row edited by hand) never fired there: listed with Quartz's reason, never imported firing on both days.
    expect(only(job(7, { scheduleConf: '0 0 9 1 * 2' }))).toMatchObject({ task: undefined, entry: { task: null, notes: ['not imported: "0 0 9 1 * 2": Quartz\'s CronExpression refuses it ("Support for specifying both a day-of-week AND a day-of-month parameter is not implemented."), so it never fired there'] } });
    expect(only(job(8, { scheduleConf: '0 0 9 1,15,L * ?' })).entry.notes[0]).toMatch(/^not imported: "0 0 9 1,15,L \* \?": Quartz's CronExpression refuses it \("Support for specifying 'L' and 'LW' with other days of the month is not implemented"\)/);
  });

  it('FIX_RATE: re-importing an unchanged job writes the same file, however far the clock and the admin\'s next fire have moved on', () => {
    const rate = { scheduleType: 'FIX_RATE', scheduleConf: '30', addTime: Date.parse('2026-06-01T08:00:10Z') };
    const file = (now: number, triggerNextTime: number) => importDocument('XXL-JOB', importXxlJob(tables([job(1, { ...rate, triggerNextTime })]), { ...OPTIONS, now }), 'job');
    const first = file(NOW, NOW - 45_000);
    expect(file(NOW + 3_600_000, NOW - 45_000 + 120 * 30_000)).toBe(first); // the admin fired 120 times since
    expect(file(NOW + 3_600_000, NOW - 45_000)).toBe(first); // the admin stopped firing (its next fire passed)
    expect(first).toContain(`startAt: ${Date.parse('2026-06-01T08:00:15Z')}`);
    // No add_time (or one after the next fire: read off by a zone): still on the grid, never after the admin's next fire.
    expect(only(job(1, { ...rate, addTime: null, triggerNextTime: NOW - 45_000 })).task.startAt).toBe(15_000);
    expect(only(job(1, { ...rate, addTime: NOW + 3_600_000, triggerNextTime: NOW + 20_000 })).task.startAt).toBe(NOW + 20_000);
    expect(only(job(1, { ...rate, triggerNextTime: 0 })).task).not.toHaveProperty('startAt'); // stopped: it starts at the apply
  });

  it('maps misfire, block and route strategies; stopped jobs are paused; retries count the first attempt', () => {
    expect(only(job(1, { misfireStrategy: 'FIRE_ONCE_NOW' })).task.misfirePolicy).toBe('FIRE_ONCE_NOW');
    expect(only(job(1, { blockStrategy: 'DISCARD_LATER' })).task.concurrencyPolicy).toBe('FORBID');
    expect(only(job(1, { blockStrategy: 'COVER_EARLY' })).task.concurrencyPolicy).toBe('REPLACE');
    expect(only(job(1)).entry.notes.join('\n')).toMatch(/block SERIAL_EXECUTION: Baton \(FORBID\) skips a fire while one runs; XXL-JOB queues it/);
    expect(only(job(1, { routeStrategy: 'SHARDING_BROADCAST' })).task.fanOut).toEqual({ mode: 'BROADCAST' });
    expect(only(job(1, { routeStrategy: 'SHARDING_BROADCAST' }), { shards: 8 }).task.fanOut).toEqual({ mode: 'SHARDED', shards: 8 });
    expect(only(job(1, { routeStrategy: 'ROUND' })).entry.notes.join('\n')).toMatch(/route ROUND: Baton routes by the engine's BATON_ROUTING; nearest ROUND_ROBIN/);
    expect(only(job(1, { routeStrategy: 'WEIGHTED' })).entry.notes[0]).toMatch(/^not imported: route strategy "WEIGHTED"/);
    expect(only(job(1, { routeStrategy: 'constructor' })).entry.notes[0]).toMatch(/^not imported: route strategy "constructor"/);
    expect(only(job(1, { routeStrategy: null })).entry.notes).toEqual(["not imported: its route strategy is missing (executor_route_strategy NULL or empty): XXL-JOB's trigger fails on it"]);
    expect(only(job(1, { blockStrategy: null })).entry.notes.join('\n')).toMatch(/block SERIAL_EXECUTION \(executor_block_strategy NULL or empty\): Baton \(FORBID\)/);
    expect(only(job(1, { triggerStatus: 0 })).task.paused).toBe(true);
    expect(only(job(1, { failRetryCount: 3, timeoutSeconds: 90 })).task).toMatchObject({ retry: { maxAttempts: 4 }, timeoutMs: 90_000 });
  });

  it('a parameter past Baton\'s params limit (64,000 bytes as JSON) is listed, not written into a file plan and apply would refuse whole', () => {
    const result = importXxlJob(tables([job(1, { param: 'x'.repeat(63_998) }), job(2, { param: 'x'.repeat(63_999) })]), OPTIONS);
    expect(result.tasks.map((t) => t.name)).toEqual(['demoJobHandler-1']); // 63,998 characters and the JSON string's quotes: 64,000
    expect(result.entries[1]).toEqual({ source: 'job 2', task: null, notes: ["not imported: params is 64001 bytes as JSON; at most 64000 are allowed (a task's params; plan and apply would refuse the whole file with it)"] });
  });

  it('GLUE jobs and jobs without a handler are listed, not imported; --map names another app and handler', () => {
    expect(only(job(1, { glueType: 'GLUE_SHELL', handler: null })).entry).toMatchObject({ task: null, notes: [expect.stringMatching(/^not imported: a GLUE job \(GLUE_SHELL\)/)] });
    expect(only(job(1, { handler: ' ' })).entry.notes[0]).toBe('not imported: it has no executor_handler');
    expect(only(job(1), { mapping: { 'sample-executor': { executorApp: 'legacy' } } }).task).toMatchObject({ executorApp: 'legacy', handler: 'demoJobHandler' });
    expect(only(job(1), { mapping: { 'sample-executor/demoJobHandler': { executorApp: 'reports', handler: 'build' } } }).task).toMatchObject({ executorApp: 'reports', handler: 'build', name: 'demoJobHandler-1' });
  });

  it('names a task after the job alone (its id and own handler, not the mapped one) and writes where it came from, so a re-import with another map updates the same task', () => {
    const mapped = only(job(1), { mapping: { 'sample-executor/demoJobHandler': { executorApp: 'reports', handler: 'build-report' } } }).task;
    const plain = only(job(1)).task;
    expect([mapped.name, plain.name]).toEqual(['demoJobHandler-1', 'demoJobHandler-1']);
    expect([mapped.importedFrom, plain.importedFrom]).toEqual(['xxl-job:xxl_job/xxl_job_ job 1', 'xxl-job:xxl_job/xxl_job_ job 1']);
    expect(importDocument('XXL-JOB', importXxlJob(tables([job(1)]), OPTIONS), 'job')).toContain('\n    importedFrom: xxl-job:xxl_job/xxl_job_ job 1\n');
  });

  it('keeps the names of the file it replaces (a task renamed there by hand too), and gives them to no other job', () => {
    const kept = new Map([['xxl-job:xxl_job/xxl_job_ job 1', 'nightly-report'], ['xxl-job:xxl_job/xxl_job_ job 9', 'demoJobHandler-2']]);
    const result = importXxlJob(tables([job(1), job(2)]), { ...OPTIONS, keptNames: kept });
    expect(result.tasks.map((t) => t.name)).toEqual(['nightly-report', 'demoJobHandler-2-2']);
    expect(result.entries[0].notes).toContain('named nightly-report as in the file this import replaces (-o); imported alone it would be demoJobHandler-1');
    expect(importXxlJob(tables([job(1)]), { ...OPTIONS, keptNames: new Map([['xxl-job:xxl_job/xxl_job_ job 1', 'demoJobHandler-1']]) }).entries[0].notes.join('\n')).not.toMatch(/named/);
  });

  it('child job ids become ON_SUCCESS dependencies; a missing, unimported, self or cycle-closing child is listed', () => {
    const result = importXxlJob(
      tables([job(1, { childJobIds: '2,3,1,9,x' }), job(2, { childJobIds: '4' }), job(3, { glueType: 'GLUE_PYTHON' }), job(4, { childJobIds: '1' })]),
      OPTIONS,
    );
    expect(result.dependencies).toEqual([
      { parent: 'demoJobHandler-1', child: 'demoJobHandler-2', condition: 'ON_SUCCESS' },
      { parent: 'demoJobHandler-2', child: 'demoJobHandler-4', condition: 'ON_SUCCESS' },
    ]);
    const notes = (id: number) => result.entries.find((e) => e.source === `job ${id}`)!.notes.join('\n');
    expect(notes(1)).toMatch(/child job 3 not carried: it is not imported \(a GLUE job/);
    expect(notes(1)).toMatch(/child job 1 is the job itself/);
    expect(notes(1)).toMatch(/child job 9 not carried: no such job/);
    expect(notes(1)).toMatch(/child job id "x" is not a job id/);
    expect(notes(4)).toMatch(/child job 1 not carried: it closes a cycle \(demoJobHandler-1 → demoJobHandler-2 → demoJobHandler-4 → demoJobHandler-1\)/);
  });

  it('--app keeps one executor group; --from starts each task at its first fire after the instant', () => {
    const billing = importXxlJob(tables([job(1), job(2, { jobGroup: 2, childJobIds: '1' })]), { ...OPTIONS, apps: ['billing'] });
    expect(billing.tasks.map((t) => t.name)).toEqual(['demoJobHandler-2']);
    expect(billing.entries[0].notes).toContain('child job 1 not carried: its executor group is not imported (--app)');
    const from = Date.parse('2027-01-05T18:00:00Z'); // 02:00 in Shanghai on the 6th
    // Read before the instant: the admin's next fire is its own to make (nothing to say), unless it had passed when read (a fire it owes).
    const { task, entry } = only(job(1, { triggerNextTime: Date.parse('2027-01-01T18:00:00Z') }), { from });
    expect(task.startAt).toBe(Date.parse('2027-01-06T18:00:00Z'));
    expect(entry.notes.join('\n')).not.toMatch(/next fire time/);
    const owed = only(job(1, { triggerNextTime: Date.parse('2026-12-31T18:00:00Z') }), { from });
    expect(owed.task.startAt).toBe(Date.parse('2027-01-06T18:00:00Z'));
    expect(owed.entry.notes.join('\n')).toMatch(/XXL-JOB's next fire time 2026-12-31T18:00:00.000Z had passed when read and is at or before the cut-over instant: XXL-JOB owes that fire/);
  });

  it('names the zone the crons were read in, once; --from: a next fire a zone offset away from Baton\'s first hints at --time-zone', () => {
    const result = importXxlJob(tables([job(1), job(2, { scheduleType: 'NONE', scheduleConf: null })]), { ...OPTIONS, timeZone: 'UTC' });
    expect(result.notes[0]).toMatch(/^Time zone: every cron is read in UTC \(--time-zone, default UTC\), as XXL-JOB's admin reads its crons in its JVM's zone\. If the admin runs in another .*import again with --time-zone <that zone>/);
    expect(importXxlJob(tables([job(2, { scheduleType: 'NONE', scheduleConf: null })]), OPTIONS).notes.join('\n')).not.toMatch(/Time zone/); // no cron, nothing read in a zone
    // Read after the instant: the admin (in Shanghai) computed 02:00 there, the import read the cron in UTC.
    const from = Date.parse('2027-01-05T12:00:00Z');
    const shanghai = job(1, { triggerNextTime: Date.parse('2027-01-05T18:00:00Z') });
    const hinted = only(shanghai, { from, timeZone: 'UTC' }).entry.notes.join('\n');
    expect(hinted).toContain("XXL-JOB's next fire time 2027-01-05T18:00:00.000Z differs from Baton's first, 2027-01-06T02:00:00.000Z: 8 h apart, as a time zone's offset is — the likely cause is the zone: the schedule was read in UTC (--time-zone), check it is the scheduler's");
    expect(only(job(1, { triggerNextTime: Date.parse('2027-01-06T02:00:00Z') + 5.75 * 3_600_000 }), { from, timeZone: 'UTC' }).entry.notes.join('\n')).toContain(': 5 h 45 min apart, as a time zone');
    expect(only(job(1, { triggerNextTime: Date.parse('2027-01-06T02:00:00Z') + 7 * 60_000 }), { from, timeZone: 'UTC' }).entry.notes.join('\n')).toMatch(/differs from Baton's first, 2027-01-06T02:00:00.000Z$/m); // no zone is 7 minutes off
    expect(only(shanghai, { from }).entry.notes.join('\n')).not.toMatch(/differs/); // the right zone: the same fire
  });

  it('the header of a large group: a line a job, each note the jobs share said once with their ids (a 6,000-job group\'s header was half its file)', () => {
    const file = importDocument('XXL-JOB', importXxlJob(tables(Array.from({ length: 1_000 }, (_, i) => job(i + 1, { description: `report ${i + 1}` }))), OPTIONS), 'job');
    const header = file.split('\n').filter((line) => line.startsWith('#'));
    expect(header.filter((line) => line.startsWith('# job '))).toHaveLength(1_000);
    expect(header.filter((line) => line.includes('block SERIAL_EXECUTION'))).toEqual(["# block SERIAL_EXECUTION: Baton (FORBID) skips a fire while one runs; XXL-JOB queues it"]);
    expect(header).toContain('#     jobs 1-1000');
    expect(header).toContain('#     not carried: description "report 7"');
    expect(header.join('\n').length).toBeLessThan(1_000 * 90); // 82 bytes a job (its line, its description); 255 with every note under each job
  });

  it('gives up a run no executor took, as XXL-JOB fails the fire: every task onStartLate GIVE_UP, said once after the entries', () => {
    const result = importXxlJob(tables([job(1), job(2, { scheduleType: 'NONE', scheduleConf: null })]), OPTIONS);
    expect(result.tasks.map((task) => task.onStartLate)).toEqual(['GIVE_UP', 'GIVE_UP']);
    const file = importDocument('XXL-JOB', result, 'job');
    expect(file).toMatch(
      /\n# 2 task\(s\) and 0 calendar\(s\) imported; 0 job\(s\) not imported\.\n#\n# Time zone: .*\n#\n# Runs waiting for an executor: XXL-JOB fails a fire at once when no executor of its group is registered .*Every task is imported with onStartLate: GIVE_UP.*ends FAILED, not retried.*Set onStartLate: ALARM on a task whose every fire must run.*\n/,
    );
  });

  it("a parameter string naming a secret (password=…, a JSON apiToken) is written as it is, and the entry and the header name the words", () => {
    const result = importXxlJob(tables([job(1, { param: 'user=etl&password=s3cret' }), job(2, { param: '{"apiToken":"t0k","region":"eu"}' }), job(3, { param: 'region=eu' })]), OPTIONS);
    expect(result.tasks[0].params).toBe('user=etl&password=s3cret');
    expect(result.entries.map((e) => e.notes.filter((n) => n.startsWith('secret')))).toEqual([['secret-named params written in clear: password'], ['secret-named params written in clear: apiToken'], []]);
    expect(result.notes.at(-1)).toMatch(/^Secrets: 2 task\(s\) have secret-named params/);
  });
});
