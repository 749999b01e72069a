import 'reflect-metadata';
import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@baton/domain';
import { DatabaseModule, TenantEntity } from '@baton/persistence';
import { MAX_WAKE_RUNS, PATHS, sign, SIGNATURE_HEADERS, WAKE_ROWS_HEADER, wakeRowsProof } from '@baton/protocol';
import { useTestDatabase } from '../../../../test/support/databases';
import { ClaimSignal } from '../common/claim-signal';
import { WAKE_BURST } from '../common/wake-floor';
import { WokenRows } from '../common/woken-rows';
import { EngineCoreModule } from '../engine-core.module';
import { EngineMetrics } from '../metrics/engine-metrics';
import { carriedRunRow, ensureTenant, T0, testConfig } from '../testing/engine-test-kit';
import { WakeupsModule } from './wakeups.module';

describe('POST /baton/wake', () => {
  const db = useTestDatabase('sqlite');
  const clock = new ManualClock(T0);
  const config = testConfig({ groups: ['default'], lookAheadMs: 2000 });
  let app: INestApplication;
  const heard: string[] = [];
  const named: Array<readonly number[] | undefined> = [];

  beforeAll(async () => {
    await ensureTenant(db.dataSource, 'acme', 'default');
    await ensureTenant(db.dataSource, 'elsewhere', 'reports');
    @Module({ imports: [DatabaseModule.forRoot({ dataSource: db.dataSource }), EngineCoreModule.forRoot(config, clock, new EngineMetrics({ defaultMetrics: false })), WakeupsModule] })
    class WakeOnly {}
    app = await NestFactory.create(WakeOnly, { logger: false, abortOnError: false, bodyParser: false });
    await app.init();
    app.get(ClaimSignal).onDue((tenantId, runIds) => {
      heard.push(tenantId);
      named.push(runIds);
    });
  });
  afterAll(() => app?.close());
  // Each test starts with every tenant's allowance full again and no trailing kick pending.
  afterEach(() => {
    clock.advance(config.wakeFloorMs * WAKE_BURST);
    expect(clock.pendingTimers).toBe(0);
  });

  const secretOf = async (tenantId: string) => (await db.dataSource.getRepository(TenantEntity).findOneByOrFail({ id: tenantId })).executorSecret;
  /** A wake-up signed by the tenant; `wakeKey`: with its rows proved with that key (WAKE_ROWS_HEADER), as the console sends them. */
  const wake = async (tenantId: string, body: unknown, at = clock.now(), wakeKey?: string) => {
    const text = JSON.stringify(body);
    clock.advance(1); // each request its own signature: the replay guard refuses one seen before
    const headers: Record<string, string> = { 'content-type': 'application/json', ...sign(await secretOf(tenantId), tenantId, 'POST', PATHS.wake, text, at) };
    if (wakeKey !== undefined) headers[WAKE_ROWS_HEADER] = wakeRowsProof(wakeKey, headers[SIGNATURE_HEADERS.signature]);
    return request(app.getHttpServer()).post(PATHS.wake).set(headers).send(text);
  };

  it("claims the signing tenant's runs now when the run falls in the look-ahead", async () => {
    heard.length = 0;
    expect((await wake('acme', { dueAt: clock.now() })).status).toBe(204);
    expect(heard).toEqual(['acme']);
    clock.advance(config.wakeFloorMs);
    expect((await wake('acme', { dueAt: clock.now() + 1500 })).status).toBe(204);
    expect(heard).toEqual(['acme', 'acme']);
  });

  /** The tenant's burst of immediate kicks used up: the next wake-up waits for the floor. */
  const useUpBurst = async (tenantId: string) => {
    for (let i = 0; i < WAKE_BURST; i++) expect((await wake(tenantId, { dueAt: clock.now(), runIds: [1000 + i] })).status).toBe(204);
  };

  it('passes the runs a wake-up names on to the claimer; those coalesced by the floor go together in the trailing kick', async () => {
    named.length = 0;
    await useUpBurst('acme');
    expect(named).toEqual(Array.from({ length: WAKE_BURST }, (_, i) => [1000 + i]));
    named.length = 0;
    expect((await wake('acme', { dueAt: clock.now(), runIds: [9] })).status).toBe(204); // beyond the burst: waits for the floor
    expect((await wake('acme', { dueAt: clock.now(), runIds: [10] })).status).toBe(204);
    expect(named).toEqual([]);
    clock.advance(config.wakeFloorMs); // the next allowed time: the coalesced kick
    expect(named).toEqual([[9, 10]]);
  });

  it("holds a tenant's wake-ups back to back to a burst, then one claim turn per BATON_WAKE_FLOOR_MS, the later ones coalesced into one, none lost", async () => {
    heard.length = 0;
    for (let i = 0; i < WAKE_BURST + 5; i++) expect((await wake('acme', { dueAt: clock.now() })).status).toBe(204);
    expect(heard).toHaveLength(WAKE_BURST);
    clock.advance(config.wakeFloorMs); // one kick for the five coalesced
    expect(heard).toHaveLength(WAKE_BURST + 1);
    clock.advance(config.wakeFloorMs);
    expect(heard).toHaveLength(WAKE_BURST + 1);
  });

  it("kicks at once a console's wake-up that brings its runs' rows, past the tenant's spent burst; one without rows, or with rows a tenant signed, still waits for the floor", async () => {
    const woken = app.get(WokenRows);
    named.length = 0;
    await useUpBurst('acme');
    named.length = 0;
    expect((await wake('acme', { dueAt: clock.now(), runIds: [601], runs: [carriedRunRow(601)] }, clock.now(), woken.key)).status).toBe(204);
    expect((await wake('acme', { dueAt: clock.now(), runIds: [602], runs: [carriedRunRow(602)] }, clock.now(), woken.key)).status).toBe(204);
    expect(named).toEqual([[601], [602]]); // neither waited
    expect((await wake('acme', { dueAt: clock.now(), runIds: [603] })).status).toBe(204);
    expect((await wake('acme', { dueAt: clock.now(), runIds: [604], runs: [carriedRunRow(604)] })).status).toBe(204); // no proof: the tenant's own
    expect(named).toEqual([[601], [602]]);
    clock.advance(config.wakeFloorMs);
    expect(named).toEqual([[601], [602], [603, 604]]);
    woken.take('acme', [601, 602]);
  });

  it("leaves to the poll a run beyond the look-ahead, and a tenant of a group this engine does not serve", async () => {
    heard.length = 0;
    expect((await wake('acme', { dueAt: clock.now() + 60_000 })).status).toBe(204);
    expect((await wake('elsewhere', { dueAt: clock.now() })).status).toBe(204);
    expect(heard).toEqual([]);
  });

  it('refuses an unsigned or mis-signed wake-up (401) and one without an instant dueAt or with bad runIds (400 naming it), and claims nothing', async () => {
    heard.length = 0;
    const unsigned = await request(app.getHttpServer()).post(PATHS.wake).set('content-type', 'application/json').send('{"dueAt":1}');
    expect(unsigned.status).toBe(401);
    const text = JSON.stringify({ dueAt: clock.now() });
    const forged = await request(app.getHttpServer())
      .post(PATHS.wake)
      .set({ 'content-type': 'application/json', ...sign('not-the-secret', 'acme', 'POST', PATHS.wake, text, clock.now()) })
      .send(text);
    expect(forged.status).toBe(401);
    for (const dueAt of ['soon', -1, 1.5, null]) {
      const bad = await wake('acme', { dueAt });
      expect(bad.status).toBe(400);
      expect(bad.body.errors).toEqual([{ field: 'dueAt', reason: 'must be an integer instant (epoch ms)' }]);
    }
    for (const runIds of [7, [0], [1.5], ['7'], Array.from({ length: MAX_WAKE_RUNS + 1 }, (_, i) => i + 1)]) {
      const bad = await wake('acme', { dueAt: clock.now(), runIds });
      expect(bad.status).toBe(400);
      expect(bad.body.errors).toEqual([{ field: 'runIds', reason: `must be an array of at most ${MAX_WAKE_RUNS} run ids (positive integers)` }]);
    }
    expect(heard).toEqual([]);
  });

  it("keeps a wake-up's run rows for its claim by id only when the console's proof is this node's wake key; leaves them otherwise (the runs are read); refuses proved rows not named or of another tenant (400 naming runs)", async () => {
    const woken = app.get(WokenRows);
    heard.length = 0;
    named.length = 0;
    // No proof, or another node's key (a console that read this node's key before it restarted): 204, the ids heard, no row kept.
    expect((await wake('acme', { dueAt: clock.now(), runIds: [501], runs: [carriedRunRow(501)] })).status).toBe(204);
    expect((await wake('acme', { dueAt: clock.now(), runIds: [502], runs: [carriedRunRow(502)] }, clock.now(), 'a-key-of-another-node')).status).toBe(204);
    expect(named).toEqual([[501], [502]]);
    expect(woken.take('acme', [501, 502])).toEqual({ given: [], missing: [501, 502] });
    heard.length = 0;
    const notNamed = await wake('acme', { dueAt: clock.now(), runIds: [503], runs: [carriedRunRow(504)] }, clock.now(), woken.key);
    expect(notNamed.status).toBe(400);
    expect(notNamed.body.errors).toEqual([{ field: 'runs', reason: 'must be rows of runs named in runIds' }]);
    const foreign = await wake('acme', { dueAt: clock.now(), runIds: [505], runs: [carriedRunRow(505, 'elsewhere')] }, clock.now(), woken.key);
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors).toEqual([{ field: 'runs', reason: 'not run rows of the signing tenant: a run row of another tenant than acme' }]);
    expect(heard).toEqual([]);
    expect(woken.take('acme', [503, 504, 505])).toEqual({ given: [], missing: [503, 504, 505] });

    expect((await wake('acme', { dueAt: clock.now(), runIds: [506, 507], runs: [carriedRunRow(506)] }, clock.now(), woken.key)).status).toBe(204);
    expect(heard).toEqual(['acme']);
    const taken = woken.take('acme', [506, 507]);
    expect(taken.given.map((r) => [r.run.id, r.run.params, r.task])).toEqual([[506, { n: 1 }, null]]);
    expect(taken.missing).toEqual([507]);
  });
});
