import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { MAX_HANDLER_SCHEMAS_BYTES, PATHS, type ExecutorHeartbeat } from '@baton/protocol';
import { handlerSchemasOfSize } from '../../../../test/protocol/handler-schemas-of-size';
import { registerEngineNode } from '@baton/persistence';
import { GroupPeers } from '../common/group-peers';
import { alarms, seedExecutor, seedTenant, signedPost, startDispatchSide, TENANT, type DispatchSideApp } from '../testing/dispatch-side-kit';

describe.each(TEST_DATABASES)('executor heartbeat endpoint on %s', (kind) => {
  const db = useTestDatabase(kind);
  let engine: DispatchSideApp;

  beforeAll(async () => {
    engine = await startDispatchSide(db.dataSource, { executorDeadAfterMs: 9_000 });
  });
  afterAll(() => engine?.close());
  beforeEach(async () => {
    await db.clear();
    await seedTenant(db.dataSource);
  });

  const heartbeat = (more: Partial<ExecutorHeartbeat> = {}): ExecutorHeartbeat => ({
    tenantId: TENANT,
    app: 'billing',
    url: 'http://10.0.0.7:7070',
    capacity: 16,
    queueLimit: 50,
    inFlight: 3,
    handlers: ['charge'],
    ...more,
  });
  const executors = async () => (await db.dataSource.query('SELECT id, app, url, capacity, queue_limit, in_flight, state, heartbeat_at FROM executors ORDER BY id')) as Array<Record<string, unknown>>;

  it('registers a new executor UP and tells it when to call again', async () => {
    const before = Date.now();
    const res = await signedPost(engine.url, PATHS.heartbeat, heartbeat());
    expect(res.status).toBe(200);
    const [row, ...more] = await executors();
    expect(more).toEqual([]);
    expect(res.body).toEqual({ executorId: Number(row.id), intervalMs: 3_000, handBacks: 0 });
    expect(row).toMatchObject({ app: 'billing', url: 'http://10.0.0.7:7070', capacity: 16, queue_limit: 50, in_flight: 3, state: 'UP' });
    expect(Number(row.heartbeat_at)).toBeGreaterThanOrEqual(before);
  });

  it('keeps the handlers each heartbeat offers (the console lists them), and refuses a list it could not keep', async () => {
    await signedPost(engine.url, PATHS.heartbeat, heartbeat({ handlers: ['charge', 'refund'] }));
    const stored = async () => JSON.parse(String(((await db.dataSource.query('SELECT handlers FROM executors')) as Array<{ handlers: string }>)[0].handlers)) as string[];
    expect(await stored()).toEqual(['charge', 'refund']);
    await signedPost(engine.url, PATHS.heartbeat, heartbeat({ handlers: ['charge'] }));
    expect(await stored()).toEqual(['charge']);
    const tooMany = await signedPost(engine.url, PATHS.heartbeat, heartbeat({ handlers: Array.from({ length: 501 }, (_, i) => `h${i}`) }));
    expect(tooMany.status).toBe(400);
    expect(JSON.stringify(tooMany.body)).toContain('handlers');
    const empty = await signedPost(engine.url, PATHS.heartbeat, heartbeat({ handlers: [''] }));
    expect(empty.status).toBe(400);
    expect(await stored()).toEqual(['charge']);
  });

  it("keeps the handlers' params schemas (the console checks tasks against them), and refuses ones it could not keep, naming the field", async () => {
    const schema = { type: 'object', required: ['amount'], properties: { amount: { type: 'number', minimum: 0 } } };
    const stored = async () => ((await db.dataSource.query('SELECT handler_schemas FROM executors')) as Array<{ handler_schemas: string | null }>)[0].handler_schemas;
    expect((await signedPost(engine.url, PATHS.heartbeat, heartbeat({ handlerSchemas: { charge: schema } }))).status).toBe(200);
    expect(JSON.parse(String(await stored()))).toEqual({ charge: schema });
    const refusals: Array<[Partial<ExecutorHeartbeat>, string]> = [
      [{ handlerSchemas: { refund: schema } }, 'handlerSchemas.refund'],
      [{ handlerSchemas: { charge: 'object' as never } }, 'handlerSchemas.charge'],
      [{ handlerSchemas: { charge: { description: 'x'.repeat(17_000) } } }, 'handlerSchemas.charge'],
      [{ handlerSchemas: [] as never }, 'handlerSchemas'],
    ];
    for (const [more, field] of refusals) {
      const res = await signedPost(engine.url, PATHS.heartbeat, heartbeat(more));
      expect(res.status, field).toBe(400);
      expect((res.body as { errors: Array<{ field: string }> }).errors[0].field).toBe(field);
    }
    expect(JSON.parse(String(await stored()))).toEqual({ charge: schema });
    // A heartbeat without schemas (an older SDK, or the handler dropped its schema): none kept.
    await signedPost(engine.url, PATHS.heartbeat, heartbeat());
    expect(await stored()).toBeNull();
  });

  it('keeps handlerSchemas of the largest size the protocol allows (the whole object; MySQL TEXT holds it), and refuses one byte more', async () => {
    const handlers = Array.from({ length: 10 }, (_, i) => `handler-${i}-`.padEnd(100, 'x'));
    const largest = handlerSchemasOfSize(handlers, MAX_HANDLER_SCHEMAS_BYTES);
    expect((await signedPost(engine.url, PATHS.heartbeat, heartbeat({ handlers, handlerSchemas: largest }))).status).toBe(200);
    const [{ handler_schemas: kept }] = (await db.dataSource.query('SELECT handler_schemas FROM executors')) as Array<{ handler_schemas: string }>;
    expect(JSON.parse(kept)).toEqual(largest);
    const over = await signedPost(engine.url, PATHS.heartbeat, heartbeat({ handlers, handlerSchemas: handlerSchemasOfSize(handlers, MAX_HANDLER_SCHEMAS_BYTES + 1) }));
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ errors: [{ field: 'handlerSchemas', reason: `at most ${MAX_HANDLER_SCHEMAS_BYTES} bytes serialised, the whole object (got ${MAX_HANDLER_SCHEMAS_BYTES + 1})` }] });
  });

  it('keeps the protocol each heartbeat states (1 when it states none: engines send runs ahead only from 2), and refuses a bad one naming the field', async () => {
    const version = async () => Number(((await db.dataSource.query('SELECT protocol_version FROM executors')) as Array<{ protocol_version: unknown }>)[0].protocol_version);
    await signedPost(engine.url, PATHS.heartbeat, heartbeat({ protocolVersion: 2 }));
    expect(await version()).toBe(2);
    await signedPost(engine.url, PATHS.heartbeat, heartbeat());
    expect(await version()).toBe(1);
    const bad = await signedPost(engine.url, PATHS.heartbeat, heartbeat({ protocolVersion: 0 }));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ errors: [{ field: 'protocolVersion' }] });
    expect(await version()).toBe(1);
  });

  it('refreshes the same executor (tenant, app, url) on later heartbeats', async () => {
    const first = await signedPost(engine.url, PATHS.heartbeat, heartbeat());
    const second = await signedPost(engine.url, PATHS.heartbeat, heartbeat({ inFlight: 9, capacity: 32 }));
    expect(second.body.executorId).toBe(first.body.executorId);
    expect(await executors()).toMatchObject([{ in_flight: 9, capacity: 32, state: 'UP' }]);
    expect(await alarms(db.dataSource)).toEqual([]);
  });

  it('a DOWN executor that heartbeats again is UP, with one EXECUTOR_UP alarm', async () => {
    const id = await seedExecutor(db.dataSource, { url: 'http://10.0.0.7:7070', state: 'DOWN', heartbeatAt: Date.now() - 60_000 });
    const res = await signedPost(engine.url, PATHS.heartbeat, heartbeat());
    expect(res.body.executorId).toBe(id);
    expect(await executors()).toMatchObject([{ state: 'UP' }]);
    await signedPost(engine.url, PATHS.heartbeat, heartbeat());
    expect(await alarms(db.dataSource)).toMatchObject([{ type: 'EXECUTOR_UP', severity: 'INFO', executorId: id, taskId: null, runId: null }]);
  });

  it('a graceful stop (draining, nothing in flight) is DOWN at once and quietly; its restart is UP with no alarm either (issue 24)', async () => {
    const first = await signedPost(engine.url, PATHS.heartbeat, heartbeat());
    // The announce: draining with work still going — stays UP until that work is done.
    await signedPost(engine.url, PATHS.heartbeat, heartbeat({ draining: true, inFlight: 1 }));
    expect(await executors()).toMatchObject([{ state: 'UP' }]);
    const last = await signedPost(engine.url, PATHS.heartbeat, heartbeat({ draining: true, inFlight: 0 }));
    expect(last.status).toBe(200);
    expect(last.body.executorId).toBe(first.body.executorId);
    const [row] = await db.dataSource.query('SELECT state, in_flight, stopped_at FROM executors');
    expect({ state: row.state, inFlight: Number(row.in_flight), stopped: row.stopped_at !== null }).toEqual({ state: 'DOWN', inFlight: 0, stopped: true });
    // Said twice (announce and last word): the same.
    expect((await signedPost(engine.url, PATHS.heartbeat, heartbeat({ draining: true, inFlight: 0 }))).status).toBe(200);
    await signedPost(engine.url, PATHS.heartbeat, heartbeat());
    const [back] = await db.dataSource.query('SELECT state, stopped_at FROM executors');
    expect(back).toMatchObject({ state: 'UP', stopped_at: null });
    expect(await alarms(db.dataSource)).toEqual([]);
  });

  it('refuses a bad signature (401) and a malformed heartbeat (400), storing nothing', async () => {
    const forged = await signedPost(engine.url, PATHS.heartbeat, heartbeat(), { secret: 'wrong' });
    expect(forged.status).toBe(401);
    expect(forged.body).toMatchObject({ statusCode: 401, code: 'BAD_SIGNATURE', reason: 'BAD_SIGNATURE' });
    const bad = await signedPost(engine.url, PATHS.heartbeat, heartbeat({ url: 'ftp://x' }));
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ statusCode: 400, code: 'VALIDATION_FAILED', error: 'Bad Request', message: 'url: must be http or https', errors: [{ field: 'url', reason: 'must be http or https' }] });
    const noCapacity = await signedPost(engine.url, PATHS.heartbeat, { ...heartbeat(), capacity: -1 });
    expect(noCapacity.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'capacity', reason: 'an integer from 0 to 1000000' }] });
    expect(await executors()).toEqual([]);
  });

  it('refuses a captured heartbeat replayed with a re-spelt signature (401 MALFORMED_SIGNATURE), changing nothing', async () => {
    const first = await signedPost(engine.url, PATHS.heartbeat, heartbeat());
    expect(first.status).toBe(200);
    const before = await executors();
    const body = JSON.stringify(heartbeat());
    for (const spell of [(s: string) => s.toUpperCase(), (s: string) => `${s}0`, (s: string) => `${s}zz`]) {
      const headers = { ...first.headers, 'x-baton-signature': spell(first.headers['x-baton-signature']) };
      const replay = await signedPost(engine.url, PATHS.heartbeat, null, { headers, rawBody: body });
      expect({ status: replay.status, reason: replay.body.reason }).toEqual({ status: 401, reason: 'MALFORMED_SIGNATURE' });
    }
    expect(await executors()).toEqual(before);
  });

  // Issue 12 item 11: an executor could register http://169.254.169.254/ and engines then POSTed signed dispatches there.
  it('refuses link-local and metadata URLs (403 naming url) whatever the tenant allows, storing nothing', async () => {
    for (const url of ['http://169.254.169.254/', 'http://[fe80::1]:9100', 'http://metadata.google.internal/', 'http://2852039166/', 'http://[::ffff:169.254.169.254]/']) {
      const res = await signedPost(engine.url, PATHS.heartbeat, heartbeat({ url }));
      expect({ url, status: res.status, body: res.body }).toMatchObject({ url, status: 403, body: { statusCode: 403, code: 'FORBIDDEN', errors: [{ field: 'url', reason: expect.stringContaining('which Baton never calls') }] } });
    }
    expect(await executors()).toEqual([]);
  });

  it("refuses the cluster's own listening addresses (403 naming url, storing nothing) — this engine's, another engine's — and registers another port of this machine", async () => {
    await registerEngineNode(db.dataSource.manager, { id: 'engine-peer', groups: ['default'], host: 'elsewhere', pid: 42, url: 'http://10.0.0.99:8091', slots: 1, startedAt: Date.now(), heartbeatAt: Date.now() });
    await engine.get(GroupPeers).refresh();
    const port = new URL(engine.url).port;
    for (const url of [engine.url, `http://localhost:${port}/baton`, `http://[::1]:${port}`, 'http://10.0.0.99:8091']) {
      const res = await signedPost(engine.url, PATHS.heartbeat, heartbeat({ url }));
      expect({ url, status: res.status, errors: res.body.errors }).toEqual({ url, status: 403, errors: [{ field: 'url', reason: expect.stringContaining('is a listening address of the Baton cluster itself') }] });
    }
    expect(await executors()).toEqual([]);
    const other = `http://127.0.0.1:${Number(port) === 65535 ? 65534 : Number(port) + 1}`;
    expect((await signedPost(engine.url, PATHS.heartbeat, heartbeat({ url: other }))).status).toBe(200);
  });

  it("refuses a URL outside the tenant's executor networks (403), and registers one inside", async () => {
    // A tenant of its own: the engine caches tenants for a few seconds across tests.
    const zoned = { tenantId: 'zoned', secret: 'zoned-secret' };
    await seedTenant(db.dataSource, { id: zoned.tenantId, secret: zoned.secret, executorNetworks: ['10.0.0.0/8', '*.svc.cluster.local'] });
    const beat = (url: string) => signedPost(engine.url, PATHS.heartbeat, heartbeat({ tenantId: zoned.tenantId, url }), zoned);
    const outside = await beat('http://192.168.1.9:7070');
    expect(outside.status).toBe(403);
    expect(outside.body.errors).toEqual([{ field: 'url', reason: '192.168.1.9 is in private (192.168.0.0/16), not allowed for this tenant' }]);
    expect((await beat('http://93.184.216.34:7070')).body.errors).toEqual([{ field: 'url', reason: "93.184.216.34 is not in the tenant's allowed executor networks (10.0.0.0/8, *.svc.cluster.local)" }]);
    expect((await beat('http://billing.prod.svc.cluster.local:7070')).status).toBe(200);
    expect((await beat('http://10.0.0.7:7070')).status).toBe(200);
    expect((await executors()).map((e) => e.url)).toEqual(['http://billing.prod.svc.cluster.local:7070', 'http://10.0.0.7:7070']);
  });

  it('refuses a heartbeat for another tenant than the signing one', async () => {
    await seedTenant(db.dataSource, { id: 'globex', secret: 'globex-secret' });
    const res = await signedPost(engine.url, PATHS.heartbeat, heartbeat(), { tenantId: 'globex', secret: 'globex-secret' });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'BAD_SIGNATURE', reason: 'TENANT_MISMATCH' });
    expect(await executors()).toEqual([]);
  });
});
