/**
 * Concurrency keys end to end (issue 42 item 2), on SQLite and MariaDB: a console, an engine and
 * an SDK executor in this process on one test database. A task bounded per key of its params
 * (`concurrency: { key: 'customerId', limit: 1 }`) runs one run at a time per key while other keys
 * go in parallel; runs beyond the limit wait HELD in the database and start, oldest first, as the
 * key's runs end (woken, not polled); CANCEL_NEW cancels the newcomer, CANCEL_OLDEST the runner
 * (aborted at its executor); another tenant's same key is not held back; a rate key starts its
 * runs a token at a time; tasks naming one key group share its keys' places and tokens, and
 * another tenant's group of the name is apart; nothing is lost or doubled. The handler holds each
 * run until the test lets it go, so "at once" is a fact checked in the database, not a timing.
 * The engine's claim poll is 10 minutes: every run starts by a wake-up.
 */
import { randomBytes } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecutorServer, defineHandler, type ExecutorServer } from '@baton/executor-sdk';
import { InProcessWakeups } from '@baton/messaging';
import { RunEntity } from '@baton/persistence';
import { EngineMetrics, EngineModule, readEngineConfig, startEngine } from '../../apps/engine/src';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { waitFor } from '../cluster/support/cluster';
import { seedTenant, startConsole, type ConsoleTestApp, type SeededTenant } from '../console/console-test-kit';

/** Bounds a hang only (each wait is for the fact it names), kept under the tests' own timeouts. */
const WAIT_MS = 50_000;

function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, detail?: () => Promise<string>): Promise<T> {
  return waitFor(probe, { what, timeoutMs: WAIT_MS, intervalMs: 20, detail });
}

describe.each(TEST_DATABASES)('concurrency keys on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let engine: INestApplication;
  let metrics: EngineMetrics;
  const executors: ExecutorServer[] = [];
  let acme: SeededTenant;
  let globex: SeededTenant;
  /** Runs started by the handler, in order, and how many times each. */
  const started: number[] = [];
  /** The test lets a held-open run finish. */
  const gates = new Map<number, () => void>();
  const aborted = new Set<number>();
  /** Most runs of one (tenant, key) the handler saw running at once. */
  const running = new Map<string, number>();
  const most = new Map<string, number>();

  const executor = (tenant: SeededTenant, engineUrl: string) =>
    createExecutorServer({
      tenantId: tenant.id,
      secret: `secret-${tenant.id}`,
      app: 'crm',
      engineUrls: [engineUrl],
      spoolFile: false,
      heartbeatIntervalMs: 200,
      logger: false,
      handlers: [
        defineHandler<{ customerId?: string }>('gate', (ctx) => {
          started.push(ctx.runId);
          const key = `${tenant.id}/${ctx.params.customerId ?? ''}`;
          running.set(key, (running.get(key) ?? 0) + 1);
          most.set(key, Math.max(most.get(key) ?? 0, running.get(key)!));
          return new Promise<null>((resolve, reject) => {
            const done = () => running.set(key, running.get(key)! - 1);
            gates.set(ctx.runId, () => (done(), resolve(null)));
            ctx.signal.addEventListener('abort', () => (done(), aborted.add(ctx.runId), reject(ctx.signal.reason)));
          });
        }),
      ],
    });

  beforeAll(async () => {
    // The console's wake-ups reach the engine in this process (as in embedded mode); the engine's
    // claim poll is longer than the file, so every start below comes from a wake-up: a trigger's,
    // a key's place given back, a rate key's next token.
    const wakeups = new InProcessWakeups();
    t = await startConsole(db.dataSource, Date.now(), { wakeups });
    acme = await seedTenant(t, db.dataSource, 'acme');
    globex = await seedTenant(t, db.dataSource, 'globex');
    const config = readEngineConfig({}, { databaseUrl: db.url, nodeId: `keys-${randomBytes(3).toString('hex')}`, host: '127.0.0.1', port: 0, watchdogIntervalMs: 100, planIntervalMs: 100, heartbeatMs: 500, loadSampleMs: 200, claimIntervalMs: 600_000 });
    metrics = new EngineMetrics({ defaultMetrics: false });
    engine = await NestFactory.create(EngineModule.forRoot({ config, dataSource: db.dataSource, metrics, wakeups }), { bodyParser: false, logger: ['error'], abortOnError: false });
    await engine.listen(0, '127.0.0.1');
    const engineUrl = await startEngine(engine);
    for (const tenant of [acme, globex]) {
      const server = executor(tenant, engineUrl);
      await server.start();
      executors.push(server);
    }
    await until('both executors UP', async () => ((await db.dataSource.query("SELECT id FROM executors WHERE state = 'UP'")) as unknown[]).length === 2);
  }, 120_000);
  afterAll(async () => {
    for (const gate of gates.values()) gate();
    for (const server of executors) await server.stop();
    await engine?.close();
    await t?.close();
  });

  const createTask = async (who: SeededTenant, name: string, concurrency: object | null, rateLimit: object | null = null) => {
    const res = await t.http().post('/api/tasks').set(who.admin).send({ name, executorApp: 'crm', handler: 'gate', trigger: { kind: 'MANUAL' }, concurrency, rateLimit });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as number;
  };
  const trigger = async (who: SeededTenant, taskId: number, customerId?: string) => {
    t.clock.set(Date.now());
    const res = await t.http().post(`/api/tasks/${taskId}/trigger`).set(who.admin).send({ params: customerId === undefined ? {} : { customerId } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as number;
  };
  const run = (id: number) => db.dataSource.getRepository(RunEntity).findOneByOrFail({ id });
  const stateOf = async (id: number) => (await run(id)).state;
  const inState = (id: number, state: string) => until(`run ${id} ${state}`, async () => (await stateOf(id)) === state, () => whereIs(id));
  /** A run's row and its key's runs, for a wait that failed: where it stopped. */
  const whereIs = async (id: number) => {
    const row = await run(id);
    const keyRuns = await db.dataSource.getRepository(RunEntity).findBy({ taskId: row.taskId });
    const brief = (r: RunEntity) => `${r.id} ${r.state} key=${JSON.stringify(r.runKey)} attempt=${r.attempt} due=${r.dueAt} ${r.error ?? ''}`.trim();
    return `run ${brief(row)}; its task's runs: ${keyRuns.map(brief).join(' | ')}; started: ${started.join(',')}`;
  };
  const startedRun = (id: number) => until(`run ${id} started by the handler`, async () => started.includes(id), () => whereIs(id));
  const finish = (id: number) => {
    gates.get(id)!();
    return inState(id, 'SUCCEEDED');
  };

  it('refuses a bad bound naming the field and the reason, and stores the good one with its defaults', async () => {
    const bad = await t.http().post('/api/tasks').set(acme.admin).send({ name: 'bad', executorApp: 'crm', handler: 'gate', trigger: { kind: 'MANUAL' }, concurrency: { key: 'a..b', limit: 0, onLimit: 'DROP' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['concurrency.key', 'concurrency.limit', 'concurrency.onLimit']);
    const badGroups = await t.http().post('/api/tasks').set(acme.admin).send({ name: 'bad-group', executorApp: 'crm', handler: 'gate', trigger: { kind: 'MANUAL' }, concurrency: { key: 'customerId', limit: 1, group: 'no spaces' }, rateLimit: { key: 'customerId', perSecond: 1, group: 'x'.repeat(65) } });
    expect(badGroups.status).toBe(400);
    expect(badGroups.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['concurrency.group', 'rateLimit.group']);
    const id = await createTask(acme, 'defaults', { key: 'customerId', limit: 2 });
    expect((await t.http().get(`/api/tasks/${id}`).set(acme.viewer)).body.concurrency).toEqual({ key: 'customerId', limit: 2, onLimit: 'QUEUE' });
    const grouped = await createTask(acme, 'grouped', { key: 'customerId', limit: 2, group: null }, { key: 'customerId', perSecond: 2, group: 'orders-api' });
    // A null group is none: the bound is stored and answered as one without groups.
    const { body } = await t.http().get(`/api/tasks/${grouped}`).set(acme.viewer);
    expect([body.concurrency, body.rateLimit]).toEqual([{ key: 'customerId', limit: 2, onLimit: 'QUEUE' }, { key: 'customerId', perSecond: 2, burst: 1, group: 'orders-api' }]);
  });

  it('QUEUE: one run at a time per key, other keys and tenants in parallel, the held ones in order as runs end; none lost or doubled', { timeout: 90_000 }, async () => {
    const sync = await createTask(acme, 'sync', { key: 'customerId', limit: 1 });
    const theirs = await createTask(globex, 'sync', { key: 'customerId', limit: 1 });
    const c1 = [await trigger(acme, sync, 'c1'), await trigger(acme, sync, 'c1'), await trigger(acme, sync, 'c1')];
    const c2 = [await trigger(acme, sync, 'c2'), await trigger(acme, sync, 'c2')];
    const none = [await trigger(acme, sync), await trigger(acme, sync)];
    // The first of each key runs; the others wait HELD, in the database, with their key on the row.
    await Promise.all([startedRun(c1[0]), startedRun(c2[0]), startedRun(none[0])]);
    for (const id of [c1[1], c1[2], c2[1], none[1]]) await inState(id, 'HELD');
    expect((await run(c1[1])).runKey).toBe('c1');
    expect((await run(none[1])).runKey).toBe('');
    // Tenant B's run of the same key is not held back by A's.
    const b = await trigger(globex, theirs, 'c1');
    await startedRun(b);
    // The held-by-key gauge counts A's held runs.
    await until('the held-runs gauge', async () => /tenant="[^"]*"} 4$/m.test(await metrics.registry.getSingleMetricAsString('baton_engine_tenant_key_held_runs')));

    // Each end lets the oldest held run of its key start, and only that one.
    await finish(c1[0]);
    await startedRun(c1[1]);
    expect(await stateOf(c1[2])).toBe('HELD');
    await finish(c2[0]);
    await startedRun(c2[1]);
    await finish(c1[1]);
    await startedRun(c1[2]);
    await finish(none[0]);
    await startedRun(none[1]);
    for (const id of [c1[2], c2[1], none[1], b]) await finish(id);

    const mine = [...c1, ...c2, ...none, b];
    expect(started.filter((id) => mine.includes(id)).sort()).toEqual([...mine].sort()); // each once
    expect([most.get('acme/c1'), most.get('acme/c2'), most.get('acme/'), most.get('globex/c1')]).toEqual([1, 1, 1, 1]);
    // The keys' starts kept the order the runs were made in.
    expect(started.filter((id) => c1.includes(id))).toEqual(c1);
  });

  it('a bound removed while runs are HELD (PATCH concurrency: null): the next end releases them all, and they start', { timeout: 60_000 }, async () => {
    const task = await createTask(acme, 'unbound', { key: 'customerId', limit: 1 });
    const runs = [await trigger(acme, task, 'rm'), await trigger(acme, task, 'rm'), await trigger(acme, task, 'rm')];
    await startedRun(runs[0]);
    for (const id of runs.slice(1)) await inState(id, 'HELD');
    const res = await t.http().patch(`/api/tasks/${task}`).set(acme.admin).send({ concurrency: null });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.concurrency).toBeNull();
    expect(await db.dataSource.query('SELECT key_concurrency FROM tasks WHERE id = ?', [task])).toEqual([{ key_concurrency: null }]);
    await finish(runs[0]);
    await Promise.all(runs.slice(1).map(startedRun));
    for (const id of runs.slice(1)) await finish(id);
  });

  it('CANCEL_NEW: a run finding its key full is cancelled, the running one goes on', { timeout: 60_000 }, async () => {
    const task = await createTask(acme, 'refresh', { key: 'customerId', limit: 1, onLimit: 'CANCEL_NEW' });
    const first = await trigger(acme, task, 'c9');
    await startedRun(first);
    const second = await trigger(acme, task, 'c9');
    await inState(second, 'CANCELLED');
    expect((await run(second)).error).toMatch(/onLimit CANCEL_NEW/);
    const other = await trigger(acme, task, 'c10');
    await startedRun(other);
    await finish(first);
    await finish(other);
    expect(started).not.toContain(second);
  });

  it('CANCEL_OLDEST: the running run is cancelled and aborted at its executor, the new one runs', { timeout: 60_000 }, async () => {
    const task = await createTask(acme, 'latest', { key: 'customerId', limit: 1, onLimit: 'CANCEL_OLDEST' });
    const first = await trigger(acme, task, 'c7');
    await startedRun(first);
    const second = await trigger(acme, task, 'c7');
    await startedRun(second);
    expect(await stateOf(first)).toBe('CANCELLED');
    expect((await run(first)).error).toMatch(/CANCEL_OLDEST/);
    await until(`run ${first} aborted at its executor`, async () => aborted.has(first));
    await finish(second);
  });

  it('rateLimit: a key starts at most perSecond runs a second, the others moved to their token\'s time; other keys do not wait', { timeout: 60_000 }, async () => {
    const task = await createTask(acme, 'notify', null, { key: 'customerId', perSecond: 2, burst: 1 });
    const r1 = [await trigger(acme, task, 'r1'), await trigger(acme, task, 'r1'), await trigger(acme, task, 'r1')];
    const r2 = await trigger(acme, task, 'r2');
    await Promise.all([startedRun(r1[0]), startedRun(r2)]);
    for (const id of [r1[0], r2]) await finish(id);
    await startedRun(r1[1]);
    // It waited for its token, saying so in its error; running (held open by the handler), it says nothing.
    expect(await run(r1[1])).toMatchObject({ state: expect.stringMatching(/^(DISPATCHED|ACCEPTED)$/), error: null });
    await finish(r1[1]);
    await startedRun(r1[2]);
    await finish(r1[2]);
    const rows = await Promise.all([...r1, r2].map(run));
    // The first of each key took the full bucket's token at once; the others were moved to their token's time (instant_at keeps
    // the instant they were made for), half a second apart.
    // Which of r1's later runs got the earlier token is not promised (each is moved when its claim meets an empty bucket).
    expect(rows.map((r) => r.instantAt === null)).toEqual([true, false, false, true]);
    const r1Due = rows.slice(0, 3).map((r) => r.dueAt).sort((a, b) => a - b);
    expect(r1Due[1] - r1Due[0]).toBeGreaterThanOrEqual(500);
    expect(r1Due[2] - r1Due[1]).toBeGreaterThanOrEqual(500);
    expect(started.filter((id) => [...r1, r2].includes(id)).sort()).toEqual([...r1, r2].sort());
  });

  it('rateLimit: a run whose token comes within the look-ahead waits CLAIMED, its token taken for that instant, its error saying which token; then it starts', { timeout: 60_000 }, async () => {
    const task = await createTask(acme, 'slow-notify', null, { key: 'customerId', perSecond: 0.2, burst: 1 });
    const first = await trigger(acme, task, 'w1');
    const second = await trigger(acme, task, 'w1');
    await startedRun(first);
    // Its token is 5 s away, within the engine's look-ahead (10 s): claimed ahead again at once, as MANUAL's rateLimit says.
    await until(`run ${second} CLAIMED waiting for its token`, async () => {
      const row = await run(second);
      return row.state === 'CLAIMED' && row.instantAt !== null && row.error === "Waiting for a token of its rate key 'w1' (rateLimit 0.2/s, burst 1)";
    }, () => whereIs(second));
    await startedRun(second);
    expect((await run(second)).error).toBeNull();
    for (const id of [first, second]) await finish(id);
  });

  it('a key group: two tasks share a key (limit 1) — the second task\'s run waits HELD while the first\'s runs and starts when it ends; another key of the group, and another tenant\'s group of the same name, go at once', { timeout: 60_000 }, async () => {
    const group = { key: 'customerId', limit: 1, onLimit: 'QUEUE', group: 'customer-sync' };
    const orders = await createTask(acme, 'sync-orders', group);
    const invoices = await createTask(acme, 'sync-invoices', group);
    const theirs = await createTask(globex, 'sync-orders', group);
    const first = await trigger(acme, orders, 'g1');
    await startedRun(first);
    const second = await trigger(acme, invoices, 'g1');
    await inState(second, 'HELD');
    expect(await run(second)).toMatchObject({ runKey: 'g1', keyScope: 'g:customer-sync' });
    const otherKey = await trigger(acme, invoices, 'g2');
    const otherTenant = await trigger(globex, theirs, 'g1');
    await Promise.all([startedRun(otherKey), startedRun(otherTenant)]);
    expect(await stateOf(second)).toBe('HELD');
    await finish(first);
    await startedRun(second);
    for (const id of [second, otherKey, otherTenant]) await finish(id);
    expect([most.get('acme/g1'), most.get('acme/g2'), most.get('globex/g1')]).toEqual([1, 1, 1]);
  });

  it('a key group whose tasks state different limits: each run is admitted, and released, by its own task\'s limit against the group\'s count', { timeout: 60_000 }, async () => {
    const one = await createTask(acme, 'group-one', { key: 'customerId', limit: 1, group: 'mixed' });
    const two = await createTask(acme, 'group-two', { key: 'customerId', limit: 2, group: 'mixed' });
    const a1 = await trigger(acme, one, 'g7');
    await startedRun(a1);
    const b1 = await trigger(acme, two, 'g7'); // 1 going < its limit 2
    await startedRun(b1);
    const a2 = await trigger(acme, one, 'g7'); // 2 going ≥ its limit 1
    await inState(a2, 'HELD');
    await finish(a1); // 1 going (b1): still not below a2's limit
    expect(await stateOf(a2)).toBe('HELD');
    await finish(b1);
    await startedRun(a2);
    await finish(a2);
  });

  it('a key group: CANCEL_NEW is the new run\'s own task\'s choice, against the group\'s going runs', { timeout: 60_000 }, async () => {
    const queued = await createTask(acme, 'group-queue', { key: 'customerId', limit: 1, group: 'refresh' });
    const dropping = await createTask(acme, 'group-drop', { key: 'customerId', limit: 1, onLimit: 'CANCEL_NEW', group: 'refresh' });
    const first = await trigger(acme, queued, 'g5');
    await startedRun(first);
    const dropped = await trigger(acme, dropping, 'g5');
    await inState(dropped, 'CANCELLED');
    expect((await run(dropped)).error).toMatch(/key 'g5' of group 'refresh' already going \(concurrency onLimit CANCEL_NEW\)/);
    await finish(first);
  });

  it('a key group: a rate key\'s tokens come from one bucket whichever task\'s run takes them', { timeout: 60_000 }, async () => {
    const rate = { key: 'customerId', perSecond: 2, burst: 1, group: 'crm-api' };
    const a = await createTask(acme, 'api-a', null, rate);
    const b = await createTask(acme, 'api-b', null, rate);
    const runs = [await trigger(acme, a, 'g9'), await trigger(acme, b, 'g9')];
    for (const id of runs) await startedRun(id);
    for (const id of runs) await finish(id);
    // Per task, each would have had a full bucket's token at once; sharing one, the later waited for the next token.
    const rows = (await Promise.all(runs.map(run))).sort((x, y) => x.dueAt - y.dueAt);
    expect(rows.map((r) => r.instantAt === null)).toEqual([true, false]);
    expect(rows[1].dueAt - rows[0].dueAt).toBeGreaterThanOrEqual(500);
  });

  it('carries the bounds and their groups through tasks as code: export, a plan of the same file changes nothing, a changed group names its bound', async () => {
    await createTask(acme, 'as-code', { key: 'order.id', limit: 3, onLimit: 'CANCEL_OLDEST', group: 'orders' }, { key: 'order.id', perSecond: 2, burst: 4 });
    const exported = await t.http().get('/api/config/export').set(acme.adminKey);
    expect(exported.status).toBe(200);
    expect(exported.text).toContain('onLimit: CANCEL_OLDEST');
    expect(exported.text).toContain('perSecond: 2');
    expect(exported.text).toContain('group: orders');
    const same = await t.http().post('/api/config/plan').set(acme.admin).send({ file: exported.text });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(same.body.changes).toEqual([]);
    const moved = await t.http().post('/api/config/plan').set(acme.admin).send({ file: exported.text.replace('group: orders\n', 'group: orders-2\n') });
    expect(JSON.stringify(moved.body.changes)).toContain('concurrency');
  });
});
