/**
 * Debounce and throttle per key end to end (issue 42 item 3), on SQLite and MariaDB: a console, an
 * engine and an SDK executor in this process on one test database, sharing one manual clock — the
 * windows' arithmetic runs on it, so a burst "100 ms apart" is 100 ms of that clock, and a window
 * comes due when the test moves it there (the engine's claim, polling every 50 ms of real time,
 * then finds it). A burst of events of two keys makes one run per key with the last payload, held
 * as a COALESCING row (not claimed ahead of its time); maxWaitMs caps a burst that never goes
 * quiet; a key's next burst after its run started opens a new window; a trigger joins a window as
 * an event does; a throttle lets `limit` runs a period through and folds the rest into one run at
 * the period's end with the last payload (keep LAST), or drops them (keep FIRST, a 409 naming
 * `throttle`); a submission's idempotency key makes its repeats answer the run it got. Every wait
 * is for the fact it names.
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
const WAIT_MS = 40_000;

/** Polls of the waits, real ms; the shared clock moves as much at each (see `until`). */
const TICK_MS = 20;

describe.each(TEST_DATABASES)('debounce and throttle on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let engine: INestApplication;
  let executor: ExecutorServer;
  let acme: SeededTenant;
  /**
   * Waits for a fact the engine brings about, the shared clock moving TICK_MS at each poll as real
   * time does (the engine's own timers — a dispatch put off while an executor's heartbeat is
   * late — are on that clock). Between the facts checked, the clock stands still.
   */
  const until = <T>(what: string, probe: () => Promise<T | null | undefined | false>, detail?: () => Promise<string>): Promise<T> =>
    waitFor(
      async () => {
        t.clock.advance(TICK_MS);
        return probe();
      },
      { what, timeoutMs: WAIT_MS, intervalMs: TICK_MS, detail },
    );
  /** What the handler was started with, by run id (each run once). */
  const seen = new Map<number, { customerId?: string; version?: number }>();
  const startedTwice: number[] = [];

  beforeAll(async () => {
    const wakeups = new InProcessWakeups();
    t = await startConsole(db.dataSource, Date.now(), { wakeups });
    acme = await seedTenant(t, db.dataSource, 'acme');
    const config = readEngineConfig({}, { databaseUrl: db.url, nodeId: `windows-${randomBytes(3).toString('hex')}`, host: '127.0.0.1', port: 0, watchdogIntervalMs: 100, planIntervalMs: 100, heartbeatMs: 500, loadSampleMs: 200, claimIntervalMs: 50, lookAheadMs: 2000 });
    engine = await NestFactory.create(EngineModule.forRoot({ config, dataSource: db.dataSource, metrics: new EngineMetrics({ defaultMetrics: false }), wakeups, clock: t.clock }), { bodyParser: false, logger: ['error'], abortOnError: false });
    await engine.listen(0, '127.0.0.1');
    const engineUrl = await startEngine(engine);
    executor = createExecutorServer({
      tenantId: acme.id,
      secret: `secret-${acme.id}`,
      app: 'crm',
      engineUrls: [engineUrl],
      spoolFile: false,
      heartbeatIntervalMs: 200,
      logger: false,
      handlers: [
        defineHandler<{ customerId?: string; version?: number }>('record', (ctx) => {
          if (seen.has(ctx.runId)) startedTwice.push(ctx.runId);
          seen.set(ctx.runId, ctx.params);
          return Promise.resolve(null);
        }),
      ],
    });
    await executor.start();
    await until('the executor UP', async () => ((await db.dataSource.query("SELECT id FROM executors WHERE state = 'UP'")) as unknown[]).length === 1);
  }, 120_000);
  afterAll(async () => {
    await executor?.stop();
    await engine?.close();
    await t?.close();
  });

  const createTask = async (name: string, bounds: object, trigger: object = { kind: 'EVENT', event: name, params: { customerId: 'customer.id', version: 'version' } }) => {
    const res = await t.http().post('/api/tasks').set(acme.admin).send({ name, executorApp: 'crm', handler: 'record', trigger, ...bounds });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as number;
  };
  /** Sends one event at `at` on the shared clock; answers the ids of the runs it started and the refused ones' bodies. */
  const emit = async (name: string, at: number, customerId: string, version: number) => {
    t.clock.set(at);
    const res = await t.http().post('/api/events').set(acme.admin).send({ name, payload: { customer: { id: customerId }, version } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { runIds: res.body.runIds as number[], refused: res.body.refusedRuns as Array<{ status: number; error: { errors: Array<{ field: string; reason: string }> } }> };
  };
  const runsOf = (taskId: number) => db.dataSource.getRepository(RunEntity).find({ where: { taskId }, order: { id: 'ASC' } });
  const run = (id: number) => db.dataSource.getRepository(RunEntity).findOneByOrFail({ id });
  const succeeded = (id: number) =>
    until(`run ${id} SUCCEEDED`, async () => (await run(id)).state === 'SUCCEEDED', async () => {
      const r = await run(id);
      return `${r.state} due ${r.dueAt - t.clock.now()} ms from now, ${r.error ?? ''}`;
    });

  it('refuses a bad debounce or throttle naming the field and the reason, and stores the good ones with their defaults', async () => {
    const bad = await t.http().post('/api/tasks').set(acme.admin).send({ name: 'bad', executorApp: 'crm', handler: 'record', trigger: { kind: 'MANUAL' }, debounce: { key: 'customerId', quietMs: 5000, maxWaitMs: 10 } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ field: 'debounce.maxWaitMs', reason: 'must be at least quietMs (5000)' }]);
    const both = await t.http().post('/api/tasks').set(acme.admin).send({ name: 'bad', executorApp: 'crm', handler: 'record', trigger: { kind: 'MANUAL' }, debounce: { key: 'a', quietMs: 1000 }, throttle: { key: 'a', limit: 0, periodMs: 1000 } });
    expect(both.body.errors.map((e: { field: string }) => e.field)).toEqual(['throttle.limit', 'throttle']);
    const d = await createTask('defaults-d', { debounce: { key: 'customerId', quietMs: 2000 } }, { kind: 'MANUAL' });
    const th = await createTask('defaults-t', { throttle: { key: 'customerId', limit: 3, periodMs: 60_000 } }, { kind: 'MANUAL' });
    expect((await t.http().get(`/api/tasks/${d}`).set(acme.viewer)).body.debounce).toEqual({ key: 'customerId', quietMs: 2000, maxWaitMs: 20_000 });
    expect((await t.http().get(`/api/tasks/${th}`).set(acme.viewer)).body.throttle).toEqual({ key: 'customerId', limit: 3, periodMs: 60_000, keep: 'LAST' });
  });

  it('debounce: a burst of events of two keys starts one run per key, with the last payload, once the key is quiet', { timeout: 60_000 }, async () => {
    const task = await createTask('customer.updated', { debounce: { key: 'customerId', quietMs: 1000, maxWaitMs: 10_000 } });
    const t0 = t.clock.now() + 1000;
    const ids = new Set<number>();
    for (let i = 0; i < 4; i++) {
      for (const key of ['c1', 'c2']) for (const id of (await emit('customer.updated', t0 + i * 100, key, i)).runIds) ids.add(id);
    }
    // One COALESCING row per key, holding the last payload, due a quiet time after the last event:
    // not claimed ahead of it, though within the claim's 2 s look-ahead all the while the burst was sent.
    const open = await runsOf(task);
    expect(open.map((r) => r.state)).toEqual(['COALESCING', 'COALESCING']);
    expect([...ids].sort()).toEqual(open.map((r) => r.id).sort());
    expect(open.map((r) => r.params)).toEqual([{ customerId: 'c1', version: 3 }, { customerId: 'c2', version: 3 }]);
    expect(open.map((r) => [r.dueAt, r.windowUntil])).toEqual([[t0 + 1300, t0 + 10_000], [t0 + 1300, t0 + 10_000]]);
    t.clock.set(t0 + 1300);
    for (const r of open) await succeeded(r.id);
    expect(open.map((r) => seen.get(r.id))).toEqual([{ customerId: 'c1', version: 3 }, { customerId: 'c2', version: 3 }]);

    // The key's next event after its run started opens a new window (a new run), the other key's is untouched.
    const next = await emit('customer.updated', t0 + 2000, 'c1', 9);
    expect(next.runIds).toHaveLength(1);
    expect(open.map((r) => r.id)).not.toContain(next.runIds[0]);
    expect((await run(next.runIds[0])).state).toBe('COALESCING');
    t.clock.set(t0 + 3000);
    await succeeded(next.runIds[0]);
    expect(seen.get(next.runIds[0])).toEqual({ customerId: 'c1', version: 9 });
    expect(await runsOf(task)).toHaveLength(3);
    expect(startedTwice).toEqual([]);
  });

  it('debounce: maxWaitMs starts a burst that never goes quiet; a trigger joins the window as an event does', { timeout: 60_000 }, async () => {
    const task = await createTask('order.changed', { debounce: { key: 'customerId', quietMs: 1000, maxWaitMs: 2500 } });
    const t0 = t.clock.now() + 1000;
    const [first] = (await emit('order.changed', t0, 'm1', 0)).runIds;
    await emit('order.changed', t0 + 900, 'm1', 1);
    await emit('order.changed', t0 + 1800, 'm1', 2);
    expect((await run(first)).dueAt).toBe(t0 + 2500); // not t0 + 2800: the burst began at t0
    t.clock.set(t0 + 2400);
    const joined = await t.http().post(`/api/tasks/${task}/trigger`).set(acme.admin).send({ params: { customerId: 'm1', version: 3 } });
    expect(joined.status, JSON.stringify(joined.body)).toBe(200);
    expect([joined.body.id, joined.body.state]).toEqual([first, 'COALESCING']);
    t.clock.set(t0 + 2500);
    await succeeded(first);
    expect(seen.get(first)).toEqual({ customerId: 'm1', version: 3 });
    expect(await runsOf(task)).toHaveLength(1);
  });

  it('throttle keep LAST: the period\'s first run at once, the rest folded into one run at its end with the last payload', { timeout: 60_000 }, async () => {
    const task = await createTask('invoice.paid', { throttle: { key: 'customerId', limit: 1, periodMs: 1000 } });
    const t0 = t.clock.now() + 1000;
    const [now] = (await emit('invoice.paid', t0, 'k1', 0)).runIds;
    const [trailing] = (await emit('invoice.paid', t0 + 100, 'k1', 1)).runIds;
    expect((await emit('invoice.paid', t0 + 200, 'k1', 2)).runIds).toEqual([trailing]);
    const [other] = (await emit('invoice.paid', t0 + 300, 'k2', 7)).runIds; // another key: its own period
    expect(new Set([now, trailing, other]).size).toBe(3);
    expect([(await run(trailing)).state, (await run(trailing)).dueAt, (await run(trailing)).params]).toEqual(['COALESCING', t0 + 1000, { customerId: 'k1', version: 2 }]);
    await succeeded(now);
    await succeeded(other);
    t.clock.set(t0 + 1000);
    await succeeded(trailing);
    expect([seen.get(now), seen.get(trailing), seen.get(other)]).toEqual([{ customerId: 'k1', version: 0 }, { customerId: 'k1', version: 2 }, { customerId: 'k2', version: 7 }]);
    expect(await runsOf(task)).toHaveLength(3);
  });

  it('throttle keep FIRST: beyond the limit an event starts nothing (refused 409 naming throttle), a trigger is answered 409', { timeout: 60_000 }, async () => {
    const task = await createTask('ticket.opened', { throttle: { key: 'customerId', limit: 2, periodMs: 60_000, keep: 'FIRST' } });
    const t0 = t.clock.now() + 1000;
    const a = (await emit('ticket.opened', t0, 'f1', 0)).runIds;
    const b = (await emit('ticket.opened', t0 + 10, 'f1', 1)).runIds;
    const dropped = await emit('ticket.opened', t0 + 20, 'f1', 2);
    expect([a.length, b.length, dropped.runIds.length]).toEqual([1, 1, 0]);
    expect(dropped.refused[0].status).toBe(409);
    expect(dropped.refused[0].error.errors[0].field).toBe('throttle');
    const trigger = await t.http().post(`/api/tasks/${task}/trigger`).set(acme.admin).send({ params: { customerId: 'f1', version: 3 } });
    expect(trigger.status).toBe(409);
    expect(trigger.body.errors[0]).toMatchObject({ field: 'throttle', reason: expect.stringContaining('keep FIRST') });
    // In an atomic batch the drop is that submission's result, not a refusal of the batch: the other key's run is written.
    const batch = await t.http().post('/api/runs/batch').set(acme.admin).send({ atomic: true, runs: [{ taskId: task, params: { customerId: 'f1', version: 5 } }, { taskId: task, params: { customerId: 'f2', version: 0 } }] });
    expect(batch.status, JSON.stringify(batch.body)).toBe(200);
    expect(batch.body.results.map((r: { status: number }) => r.status)).toEqual([409, 201]);
    for (const id of [...a, ...b, batch.body.results[1].run.id as number]) await succeeded(id);
    // The next period lets the key through again.
    const later = (await emit('ticket.opened', t0 + 60_000, 'f1', 4)).runIds;
    await succeeded(later[0]);
    expect(await runsOf(task)).toHaveLength(4);
  });

  it('idempotency keys: a repeat answers the run its first submission got, in its window and after it started, in one batch, from a dropped throttle', { timeout: 60_000 }, async () => {
    const task = await createTask('profile.sync', { debounce: { key: 'customerId', quietMs: 1000, maxWaitMs: 10_000 } }, { kind: 'MANUAL' });
    const t0 = t.clock.now() + 1000;
    const trigger = (at: number, key: string, customerId: string, version: number) => {
      t.clock.set(at);
      return t.http().post(`/api/tasks/${task}/trigger`).set(acme.admin).set('Idempotency-Key', key).send({ params: { customerId, version } });
    };
    const first = await trigger(t0, 'sync-1', 'p1', 0);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    // A retry of the same submission answers its run and leaves the window as it was: its due time does not move.
    const retry = await trigger(t0 + 500, 'sync-1', 'p1', 0);
    expect([retry.status, retry.body.id]).toEqual([200, first.body.id]);
    expect((await run(first.body.id)).dueAt).toBe(t0 + 1000);
    // Another key of the same customer joins the window as a submission without a key does.
    const second = await trigger(t0 + 600, 'sync-2', 'p1', 1);
    expect([second.status, second.body.id]).toEqual([200, first.body.id]);
    t.clock.set(t0 + 1600);
    await succeeded(first.body.id);
    // After the run started, a retry opens no second window: it still answers the first run.
    const late = await trigger(t0 + 2000, 'sync-1', 'p1', 0);
    expect([late.status, late.body.id, late.body.state]).toEqual([200, first.body.id, 'SUCCEEDED']);
    // In one batch: the key's repeat answers what its first got; a new key opens the customer's next window.
    const batch = await t.http().post('/api/runs/batch').set(acme.admin).send({
      runs: [
        { taskId: task, params: { customerId: 'p1', version: 2 }, idempotencyKey: 'sync-3' },
        { taskId: task, params: { customerId: 'p1', version: 2 }, idempotencyKey: 'sync-3' },
        { taskId: task, params: { customerId: 'p1', version: 0 }, idempotencyKey: 'sync-1' },
      ],
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(200);
    const results = batch.body.results as Array<{ status: number; run: { id: number } }>;
    expect(results.map((r) => r.status)).toEqual([201, 200, 200]);
    expect([results[1].run.id, results[2].run.id]).toEqual([results[0].run.id, first.body.id]);
    expect((await runsOf(task)).map((r) => r.id)).toEqual([first.body.id, results[0].run.id]);

    // Throttle keep FIRST: a dropped submission's retry is dropped again and takes no place of the period.
    const gated = await createTask('gate.sync', { throttle: { key: 'customerId', limit: 1, periodMs: 60_000, keep: 'FIRST' } }, { kind: 'MANUAL' });
    const send = (key: string, customerId: string) => t.http().post(`/api/tasks/${gated}/trigger`).set(acme.admin).set('Idempotency-Key', key).send({ params: { customerId, version: 0 } });
    const passed = await send('g-1', 'q1');
    expect(passed.status, JSON.stringify(passed.body)).toBe(201);
    expect((await send('g-2', 'q1')).status).toBe(409);
    const again = await send('g-2', 'q1');
    expect(again.status).toBe(409);
    expect(again.body.errors[0]).toMatchObject({ field: 'throttle', reason: expect.stringContaining('idempotency key') });
    expect([(await send('g-1', 'q1')).body.id]).toEqual([passed.body.id]);
    await succeeded(passed.body.id);
    expect(await runsOf(gated)).toHaveLength(1);
  });

  it('carries debounce and throttle through tasks as code: export, a plan of the same file changes nothing, a changed one names the field', async () => {
    await createTask('as-code-d', { debounce: { key: 'order.id', quietMs: 1500, maxWaitMs: 9000 } }, { kind: 'MANUAL' });
    await createTask('as-code-t', { throttle: { key: 'order.id', limit: 4, periodMs: 2000, keep: 'FIRST' } }, { kind: 'MANUAL' });
    const exported = await t.http().get('/api/config/export').set(acme.adminKey);
    expect(exported.status).toBe(200);
    expect(exported.text).toContain('quietMs: 1500');
    expect(exported.text).toContain('keep: FIRST');
    const same = await t.http().post('/api/config/plan').set(acme.admin).send({ file: exported.text });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(same.body.changes).toEqual([]);
    const changed = await t.http().post('/api/config/plan').set(acme.admin).send({ file: exported.text.replace('quietMs: 1500', 'quietMs: 2500') });
    expect(JSON.stringify(changed.body.changes)).toContain('debounce');
  });
});
