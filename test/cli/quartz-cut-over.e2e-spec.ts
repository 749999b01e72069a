/**
 * The cut-over of docs/MANUAL.md ("Moving in from Quartz") against a running Quartz: Debian's
 * libquartz2-java (2.3.2), clustered on a JDBC JobStore on a private database of the test MariaDB
 * (quartz/QuartzCutOver.java), fires a cron every second and a dozen other triggers (crons with
 * seconds in several zones, simple triggers of several periods, phases, repeat counts and end
 * times, calendar intervals, one-shots, a daily-time interval), each fire printing its scheduled
 * fire time. Once it runs the test picks the instant F (Quartz vetoes every fire after it and
 * schedules the triggers bounded around it), runs `baton import quartz --from F` and
 * `baton apply` against an embedded Baton whose SDK executor records each run's scheduled instant,
 * puts Quartz on standby once it has made its last fire at or before F, and lets Baton run on.
 * Per trigger, the instants fired by Quartz (up to F) and by Baton (after F) together are Quartz's
 * own fire times over the window: none lost, none twice. What the import does not carry (a
 * daily-time interval; triggers with no fire after F) is listed, and Quartz made its fires up to F.
 */
import { spawn, execFileSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createExecutorServer, defineHandler, type ExecutorServer } from '@baton/executor-sdk';
import { demoLogins } from '../../apps/embedded/src/demo-seed';
import { startEmbedded, type EmbeddedBaton } from '../../apps/embedded/src/start-embedded';
import { runBaton } from './run-baton';
import { createMysqlTestDatabase, dropMysqlDatabase, mysqlDatabaseUrl } from '../support/mysql-admin';

const JARS = ['quartz2.jar', 'HikariCP.jar', 'slf4j-api.jar', 'slf4j-nop.jar', 'mariadb-java-client.jar'].map((j) => `/usr/share/java/${j}`);
const PREFIX = 'CUT_QRTZ_';
const SCHEDULER = 'CutOver';
/** Quartz's triggers start this long after it is launched (its JVM creates the tables and schedules first; a late start only has it catch up). */
const START_AFTER_MS = 5_000;
/**
 * F, after Quartz started: at least this far ahead, and at least four times what a rehearsal of
 * the import and the plan took on this machine (so a slow or loaded machine picks a later F
 * instead of applying after it).
 */
const FROM_AFTER_STARTED_MS = 15_000;
const FROM_AFTER_REHEARSAL_TIMES = 4;
/** How long after F the test counts Baton's fires. */
const WINDOW_AFTER_FROM_MS = 8_000;
/** What the import does not carry (listed; or gone from Quartz's tables before the import, having ended): Quartz makes their fires up to F, none is Baton's. */
const NOT_IMPORTED = ['DEFAULT.daily-time-every-2s', 'DEFAULT.one-shot-at-from', 'DEFAULT.simple-ends-soon'];

describe('cut-over from a running Quartz 2.3.2 (clustered, MariaDB) to Baton', () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-quartz-cut-over-'));
  const file = join(dir, 'tasks.yaml');
  const server = process.env.BATON_TEST_MYSQL_URL!;
  let quartzDb: string;
  let baton: EmbeddedBaton;
  let executor: ExecutorServer;
  let apiKey: string;
  let quartz: ChildProcessWithoutNullStreams | undefined;
  /** Trigger (group.name) → the fire times Quartz computes for it, from the start to two minutes after F. */
  const expected = new Map<string, number[]>();
  /** Trigger → the scheduled instants Quartz fired; task name → those Baton ran. */
  const byQuartz = new Map<string, number[]>();
  const byBaton = new Map<string, number[]>();
  const said = new Set<string>();
  const add = (map: Map<string, number[]>, key: string, instant: number) => map.set(key, [...(map.get(key) ?? []), instant]);

  beforeAll(async () => {
    // The CLI is built before the clock matters (bin/baton.js builds what changed).
    await runBaton({}, 'import', '--help');
    const classes = join(dir, 'classes');
    execFileSync('javac', ['-d', classes, '-cp', JARS.join(':'), join(__dirname, 'quartz/QuartzCutOver.java'), join(__dirname, 'quartz/QuartzCatalogue.java')], { stdio: 'pipe' });
    quartzDb = await createMysqlTestDatabase(server);
    const logins = demoLogins({});
    baton = await startEmbedded({ databaseUrl: `sqlite:${join(dir, 'baton.sqlite')}`, host: '127.0.0.1', port: 0 }, logins);
    executor = createExecutorServer({
      tenantId: baton.demoTenant.id,
      secret: baton.demoTenant.executorSecret,
      engineUrls: [baton.engineUrl],
      app: 'cutover',
      handlers: [defineHandler('record', (ctx) => void add(byBaton, ctx.taskName, ctx.scheduledAt))],
      host: '127.0.0.1',
      port: 0,
      spoolFile: false,
    });
    await executor.start();
    const login = await request(baton.url).post('/api/auth/login').send(logins.tenant).expect(200);
    const auth = { authorization: `Bearer ${login.body.token}` };
    apiKey = (await request(baton.url).post('/api/api-keys').set(auth).send({ name: 'cut-over', role: 'TENANT_ADMIN' }).expect(201)).body.key;
    await vi.waitFor(async () => expect((await request(baton.url).get('/api/executors?app=cutover').set(auth).expect(200)).body).toMatchObject([{ state: 'UP' }]), { timeout: 30_000, interval: 200 });
  }, 240_000);

  afterAll(async () => {
    if (quartz && quartz.exitCode === null) {
      const exited = new Promise((r) => quartz!.once('exit', r));
      quartz.kill('SIGKILL');
      await exited;
    }
    await executor?.stop();
    await baton?.close();
    if (quartzDb) await dropMysqlDatabase(server, quartzDb);
    rmSync(dir, { recursive: true, force: true });
  });

  /** Quartz's stdout, line by line: fire times computed, fires made, and its answers. */
  const startQuartz = (start: number) => {
    const jdbc = new URL(mysqlDatabaseUrl(server, quartzDb));
    const child = spawn('java', ['-cp', [join(dir, 'classes'), ...JARS].join(':'), 'QuartzCutOver', `jdbc:mariadb://${jdbc.host}${jdbc.pathname}`, decodeURIComponent(jdbc.username), decodeURIComponent(jdbc.password), PREFIX, SCHEDULER, String(start)]);
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => code !== 0 && code !== null && console.error(`[quartz-cut-over] Quartz exited ${code}:\n${stderr}`));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const [word, trigger, instants] = line.split(' ');
      if (word === 'FIRES') expected.set(trigger, instants ? instants.split(',').map(Number) : []);
      else if (word === 'FIRED') add(byQuartz, trigger, Number(instants));
      else said.add(word);
    });
    return child;
  };

  /** The file's header: trigger → the task it became (null: listed, not imported). */
  const entries = () => {
    const found = new Map<string, string | null>();
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const entry = /^# trigger (\S+) → (?:task (\S+)|NOT IMPORTED)$/.exec(line);
      if (entry) found.set(entry[1], entry[2] ?? null);
    }
    return found;
  };

  it('every instant is fired exactly once across Quartz (up to F) and Baton (after F)', async () => {
    quartz = startQuartz(Math.ceil((Date.now() + START_AFTER_MS) / 1000) * 1000);
    await vi.waitFor(() => expect(said.has('STARTED')).toBe(true), { timeout: 60_000, interval: 50 });
    // A rehearsal of the procedure on Quartz's tables as they are (no trigger scheduled yet): what the two commands take here.
    const env = { BATON_API_URL: baton.url, BATON_API_KEY: apiKey };
    const rehearsalStarted = Date.now();
    const rehearsalFile = join(dir, 'rehearsal.yaml');
    const rehearsal = await runBaton({}, 'import', 'quartz', '--url', mysqlDatabaseUrl(server, quartzDb), '--table-prefix', PREFIX, '--scheduler', SCHEDULER, '--from', new Date(rehearsalStarted + 60_000).toISOString(), '-o', rehearsalFile);
    expect(rehearsal.code, rehearsal.stderr).toBe(0);
    const plan = await runBaton(env, 'plan', '-f', rehearsalFile);
    expect(plan.code, plan.stderr).toBe(0);
    const rehearsalMs = Date.now() - rehearsalStarted;
    // F, on a whole second (the cron every second fires at it), told to Quartz: it schedules the triggers bounded around it and prints every trigger's fire times.
    const from = Math.ceil((Date.now() + Math.max(FROM_AFTER_STARTED_MS, FROM_AFTER_REHEARSAL_TIMES * rehearsalMs)) / 1000) * 1000;
    const until = from + WINDOW_AFTER_FROM_MS;
    quartz.stdin.write(`from ${from}\n`);
    await vi.waitFor(() => expect(said.has('SCHEDULED')).toBe(true), { timeout: 30_000, interval: 20 });

    // The procedure: import with --from F and apply, both before F.
    const imported = await runBaton({}, 'import', 'quartz', '--url', mysqlDatabaseUrl(server, quartzDb), '--table-prefix', PREFIX, '--scheduler', SCHEDULER, '--map', 'QuartzCutOver$Record=cutover:record', '--from', new Date(from).toISOString(), '-o', file);
    expect(imported.code, imported.stderr).toBe(0);
    // The tables were read before this: a trigger missing from them had made its last fire by then.
    const importedAt = Date.now();
    const apply = await runBaton(env, 'apply', '-f', file);
    expect(apply.code, apply.stderr).toBe(0);
    const appliedAt = Date.now();
    expect(appliedAt, `the apply ended ${appliedAt - from} ms after F: the machine slowed down more than ${FROM_AFTER_REHEARSAL_TIMES}× after the rehearsal (${rehearsalMs} ms)`).toBeLessThan(from);
    expect(imported.stderr).not.toMatch(/warning/);

    // Every trigger is in the file, but one that had made its last fire before the import read the
    // tables (simple-ends-soon, on a slow machine): Quartz had removed it. Quartz made its fires; none is Baton's.
    const listed = entries();
    const endedBeforeImport = [...expected].filter(([trigger, grid]) => !listed.has(trigger) && grid.every((at) => at < importedAt)).map(([trigger]) => trigger);
    for (const trigger of endedBeforeImport) listed.set(trigger, null);
    expect([...listed.keys()].sort()).toEqual([...expected.keys()].sort());
    expect([...listed].filter(([, task]) => task === null).map(([trigger]) => trigger).sort()).toEqual(NOT_IMPORTED);

    // Standby once Quartz has made every fire up to F (those after it it vetoes: StopsAfter, so the standby's timing does not matter).
    const upToFrom = (trigger: string) => expected.get(trigger)!.filter((at) => at <= from);
    await vi.waitFor(() => {
      for (const trigger of expected.keys()) expect(byQuartz.get(trigger) ?? [], trigger).toEqual(expect.arrayContaining(upToFrom(trigger)));
    }, { timeout: from - Date.now() + 60_000, interval: 5 });
    quartz.stdin.write('standby\n');
    await vi.waitFor(() => expect(said.has('STANDBY')).toBe(true), { timeout: 30_000, interval: 20 });

    // Baton runs every instant of the window after F; and the cron every second one past it (later instants are not counted).
    const inWindow = (trigger: string) => expected.get(trigger)!.filter((at) => at > from && at <= until);
    await vi.waitFor(() => {
      for (const [trigger, task] of listed) if (task !== null) expect(byBaton.get(task) ?? [], trigger).toEqual(expect.arrayContaining(inWindow(trigger)));
      expect(Math.max(...(byBaton.get(listed.get('DEFAULT.every-second')!) ?? []))).toBeGreaterThan(until);
    }, { timeout: 60_000, interval: 100 });
    const exited = new Promise((r) => quartz!.once('exit', r));
    quartz.stdin.end('shutdown\n');
    await exited;

    const counted = { instants: 0, lost: [] as string[], doubled: [] as string[], wrongSide: [] as string[] };
    for (const [trigger, grid] of expected) {
      const task = listed.get(trigger)!;
      const quartzFires = (byQuartz.get(trigger) ?? []).filter((at) => at <= until);
      const batonFires = task === null ? [] : (byBaton.get(task) ?? []).filter((at) => at <= until);
      const fired = [...quartzFires, ...batonFires];
      const want = grid.filter((at) => at <= (task === null ? from : until));
      counted.instants += want.length;
      for (const at of want) {
        const times = fired.filter((f) => f === at).length;
        if (times === 0) counted.lost.push(`${trigger} ${new Date(at).toISOString()}`);
        if (times > 1) counted.doubled.push(`${trigger} ${new Date(at).toISOString()} ×${times}`);
      }
      for (const at of fired) if (!grid.includes(at)) counted.lost.push(`${trigger} fired off its grid at ${new Date(at).toISOString()}`);
      counted.wrongSide.push(...quartzFires.filter((at) => at > from).map((at) => `${trigger} ${new Date(at).toISOString()} by Quartz`), ...batonFires.filter((at) => at <= from).map((at) => `${trigger} ${new Date(at).toISOString()} by Baton`));
    }
    console.log(`[quartz-cut-over] ${expected.size} triggers, ${counted.instants} instants counted: ${counted.lost.length} lost, ${counted.doubled.length} doubled (rehearsal ${rehearsalMs} ms, applied ${from - appliedAt} ms before F, F ${new Date(from).toISOString()})`, [...counted.lost, ...counted.doubled, ...counted.wrongSide].join('; '));
    expect(counted).toMatchObject({ lost: [], doubled: [], wrongSide: [] });
    expect(counted.instants).toBeGreaterThan(100);
  }, 600_000);
});
