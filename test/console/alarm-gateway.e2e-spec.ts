import type { AddressInfo } from 'node:net';
import { Logger, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import request from 'supertest';
import { io as connect, type Socket as ClientSocket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ALARM_ACK_SCHEMA,
  buildAlarmMessage,
  type AlarmAckMessage,
  type AlarmBus,
  type AlarmBusListener,
  type AlarmMessage,
  type Unsubscribe,
} from '@baton/messaging';
import { AlarmEntity, AuditRecordEntity } from '@baton/persistence';
import { useTestDatabase } from '../support/databases';
import { insertAlarm, seedOperator, seedTenant, type ConsoleTestApp, type Credentials, type SeededTenant } from './console-test-kit';
import { configureConsoleApp, ConsoleModule, ManualClock } from '../../apps/console/src';
import type { AlarmAckReply } from '../../apps/console/src/alarms/alarm-gateway';
import { AlarmsService } from '../../apps/console/src/alarms/alarms.service';

/** A bus the test drives: delivers whatever it is told, on whichever topic (as a broker would). */
class ScriptedBus implements AlarmBus {
  readonly description = 'scripted';
  readonly topicPrefix = 'baton.alarms.';
  readonly connected = true;
  readonly acks: AlarmAckMessage[] = [];
  private readonly listeners = new Set<AlarmBusListener>();
  async publish(): Promise<void> {}
  async publishAck(ack: AlarmAckMessage): Promise<void> {
    this.acks.push(ack);
  }
  subscribe(listener: AlarmBusListener): Unsubscribe {
    this.listeners.add(listener);
    queueMicrotask(() => listener.subscribed?.({ resumed: false })); // as the real buses do
    return () => void this.listeners.delete(listener);
  }
  onConnectionChange(): Unsubscribe {
    return () => undefined;
  }
  async close(): Promise<void> {}
  alarm(topicTenantId: string, payload: unknown): void {
    for (const l of this.listeners) l.alarm({ topicTenantId, payload, raw: JSON.stringify(payload) });
  }
  ack(topicTenantId: string, payload: unknown): void {
    for (const l of this.listeners) l.ack?.({ topicTenantId, payload, raw: JSON.stringify(payload) });
  }
  subscribed(resumed: boolean): void {
    for (const l of this.listeners) l.subscribed?.({ resumed });
  }
  lost(lastHeardAt = Date.now()): void {
    for (const l of this.listeners) l.lost?.({ lastHeardAt });
  }
}

const message = (id: string, tenantId: string, extra: Partial<AlarmMessage> = {}): AlarmMessage => ({
  ...buildAlarmMessage({ id, tenantId, type: 'TIMEOUT', severity: 'CRITICAL', taskId: null, runId: 7, executorId: null, message: `alarm ${id}`, data: null, count: 1, raisedAt: 1, source: 'engine' }),
  ...extra,
});

/** The row an engine writes before it publishes `m` (published long before any loss: no catch-up reads it again). */
const rowOf = (m: AlarmMessage): Partial<AlarmEntity> => ({
  uid: m.id,
  type: m.type,
  severity: m.severity,
  taskId: m.taskId,
  runId: m.runId,
  executorId: m.executorId,
  message: m.message,
  data: m.data,
  count: m.count,
  raisedAt: m.raisedAt,
  publishedAt: 1,
});

/**
 * A socket.io client of one tenant that records its `alarm` and `alarm:acked` events; the
 * markers (see `delivered`) apart from them.
 */
interface Client {
  tenant: string;
  socket: ClientSocket;
  alarms: AlarmMessage[];
  acked: unknown[];
  markers: Set<string>;
}

const MARKER = 'marker-';

describe('console alarm gateway (socket.io)', () => {
  const db = useTestDatabase('sqlite');
  let app: INestApplication;
  let url: string;
  let bus: ScriptedBus;
  let acme: SeededTenant;
  let globex: SeededTenant;
  let operator: Credentials;
  const clients: Client[] = [];

  beforeAll(async () => {
    bus = new ScriptedBus();
    app = await NestFactory.create(
      ConsoleModule.forRoot({ dataSource: db.dataSource, clock: new ManualClock(Date.UTC(2026, 2, 1)), passwordHashRounds: 4, alarmBus: bus, consoleId: 'console-1' }),
      { bodyParser: false, logger: ['error'], abortOnError: false },
    );
    configureConsoleApp(app, { swagger: false });
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    const t = { app, http: () => request(app.getHttpServer()) } as unknown as ConsoleTestApp;
    acme = await seedTenant(t, db.dataSource, 'acme');
    globex = await seedTenant(t, db.dataSource, 'globex');
    operator = await seedOperator(t, db.dataSource);
  });
  afterAll(async () => {
    await app?.close();
  });
  beforeEach(async () => {
    await db.dataSource.getRepository(AlarmEntity).clear();
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.socket.disconnect();
  });

  const tokenOf = (c: Credentials) => c.Authorization.replace('Bearer ', '');
  async function client(tenant: string, auth: Record<string, string>): Promise<Client> {
    const socket = connect(url, { auth, transports: ['websocket'], reconnection: false, forceNew: true });
    const c: Client = { tenant, socket, alarms: [], acked: [], markers: new Set() };
    socket.on('alarm', (a: AlarmMessage) => (a.id.startsWith(MARKER) ? c.markers.add(a.id) : c.alarms.push(a)));
    socket.on('alarm:acked', (a: { id: string }) => (a.id.startsWith(MARKER) ? c.markers.add(a.id) : c.acked.push(a)));
    clients.push(c);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', (err) => reject(err));
    });
    return c;
  }
  const refused = (auth: Record<string, string>) =>
    client('none', auth).then(
      () => null,
      (err: Error & { data?: { statusCode: number } }) => ({ message: err.message, status: err.data?.statusCode }),
    );
  let markers = 0;
  const waitForMarkers = (clients: Client[], id: string) =>
    vi.waitFor(() => expect(clients.filter((c) => !c.markers.has(`${id}-${c.tenant}`)).map((c) => c.tenant)).toEqual([]), { timeout: 10_000, interval: 5 });
  /**
   * Sends a marker alarm on each client's tenant's topic and waits until every client has its
   * own. A marker takes the gateway's path of any alarm (held during a catch-up, let go after it)
   * and socket.io keeps each socket's events in order: what the gateway emitted to a socket before
   * the marker (alarms, acks) has reached it then — and what it did not emit, never will.
   */
  async function delivered(...clients: Client[]): Promise<void> {
    const id = `${MARKER}${++markers}`;
    for (const tenant of new Set(clients.map((c) => c.tenant))) await published(tenant, message(`${id}-${tenant}`, tenant));
    await waitForMarkers(clients, id);
  }
  /** What an engine does: the alarm into the database, then its message on the tenant's topic. */
  async function published(tenant: string, m: AlarmMessage): Promise<void> {
    await insertAlarm(db.dataSource, m.tenantId, rowOf(m));
    bus.alarm(tenant, m);
  }
  /**
   * Like `delivered`, with an ack from another console as the marker: the gateway relays those at
   * once, even while it holds live alarms back — so this proves what it has not emitted meanwhile.
   */
  async function deliveredNow(...clients: Client[]): Promise<void> {
    const id = `${MARKER}${++markers}`;
    for (const tenant of new Set(clients.map((c) => c.tenant))) {
      const row = await insertAlarm(db.dataSource, tenant, { uid: `${id}-${tenant}`, publishedAt: 1, ackedAt: 1, ackedBy: 'marker' });
      bus.ack(tenant, { schema: ALARM_ACK_SCHEMA, id: `${id}-${tenant}`, alarmId: row.id, tenantId: tenant, ackedAt: 1, ackedBy: 'marker', origin: 'console-2' });
    }
    await waitForMarkers(clients, id);
  }
  const ack = (c: Client, payload: unknown) => c.socket.emitWithAck('alarm:ack', payload) as Promise<AlarmAckReply>;

  it('authenticates the handshake with a session token or an API key; refuses the rest', async () => {
    await client('acme', { token: tokenOf(acme.admin) });
    await client('acme', { apiKey: acme.viewerKey['X-API-Key'] });
    expect(await refused({})).toMatchObject({ status: 401, message: expect.stringMatching(/Authentication required/) });
    expect(await refused({ token: 'nope' })).toMatchObject({ status: 401, message: expect.stringMatching(/Session expired or unknown/) });
    expect(await refused({ apiKey: 'bk_nope' })).toMatchObject({ status: 401 });
    expect(await refused({ token: tokenOf(operator) })).toMatchObject({ status: 403, message: 'The live stream is for tenant users' });
  });

  it('puts each socket in its own tenant’s room only: an alarm reaches its tenant’s sockets and no other', async () => {
    const admin = await client('acme', { token: tokenOf(acme.admin) });
    const viewer = await client('acme', { apiKey: acme.viewerKey['X-API-Key'] });
    const other = await client('globex', { token: tokenOf(globex.admin) });
    await published('acme', message('a-1', 'acme'));
    await published('globex', message('g-1', 'globex'));
    await delivered(admin, viewer, other);
    expect(admin.alarms.map((a) => a.id)).toEqual(['a-1']);
    expect(viewer.alarms.map((a) => a.id)).toEqual(['a-1']);
    expect(other.alarms.map((a) => a.id)).toEqual(['g-1']);
    expect(admin.alarms[0]).toEqual(message('a-1', 'acme'));
  });

  it("shows a viewer's socket an alarm's secret-named data redacted, as GET /api/alarms does; an admin's in clear", async () => {
    const admin = await client('acme', { token: tokenOf(acme.admin) });
    const viewer = await client('acme', { token: tokenOf(acme.viewer) });
    const viewerKey = await client('acme', { apiKey: acme.viewerKey['X-API-Key'] });
    const data = { order: 'o-1', apiToken: 'tok-live', nested: { password: 'pw-live' } };
    await published('acme', message('s-1', 'acme', { type: 'BUSINESS', data }));
    await delivered(admin, viewer, viewerKey);
    expect(admin.alarms.map((a) => a.data)).toEqual([data]);
    for (const c of [viewer, viewerKey]) {
      expect(c.alarms.map((a) => a.data)).toEqual([{ order: 'o-1', apiToken: '[redacted]', nested: { password: '[redacted]' } }]);
      expect(c.alarms[0]).toMatchObject({ id: 's-1', type: 'BUSINESS', message: 'alarm s-1' });
    }

    // The REST reads of the stored alarm, by the same rule.
    const row = await db.dataSource.getRepository(AlarmEntity).findOneByOrFail({ uid: 's-1' });
    const http = () => request(app.getHttpServer());
    for (const who of [acme.viewer, acme.viewerKey]) {
      const list = await http().get('/api/alarms?type=BUSINESS').set(who);
      expect(list.body.items.map((a: { data: unknown }) => a.data)).toEqual([{ order: 'o-1', apiToken: '[redacted]', nested: { password: '[redacted]' } }]);
      const one = await http().get(`/api/alarms/${row.id}`).set(who);
      expect(one.body.data).toEqual({ order: 'o-1', apiToken: '[redacted]', nested: { password: '[redacted]' } });
      expect(`${list.text}${one.text}`).not.toMatch(/tok-live|pw-live/);
    }
    expect((await http().get(`/api/alarms/${row.id}`).set(acme.adminKey)).body.data).toEqual(data);
  });

  it('accepts on topic T only alarms of tenant T, only valid ones, and each id once', async () => {
    const admin = await client('acme', { token: tokenOf(acme.admin) });
    const other = await client('globex', { token: tokenOf(globex.admin) });
    await published('acme', message('x-1', 'globex')); // another tenant's alarm on acme's topic
    await published('globex', message('x-2', 'acme')); // acme's alarm on globex's topic
    bus.alarm('acme', { ...message('x-3', 'acme'), severity: 'SEVERE' });
    bus.alarm('acme', 'not json at all');
    await published('acme', message('x-4', 'acme'));
    bus.alarm('acme', message('x-4', 'acme')); // a repeat
    await delivered(admin, other);
    expect(admin.alarms.map((a) => a.id)).toEqual(['x-4']);
    expect(other.alarms).toEqual([]);
  });

  it('pushes an alarm only as the database has it: a message whose alarm is not stored, or is another tenant’s, is dropped and logged once per tenant', async () => {
    const warn = vi.spyOn(Logger.prototype, 'warn');
    try {
      const admin = await client('acme', { token: tokenOf(acme.admin) });
      const other = await client('globex', { token: tokenOf(globex.admin) });
      // What anyone who can reach the broker can send: a well-formed alarm on acme's topic.
      bus.alarm('acme', message('forged-1', 'acme', { type: 'BUSINESS', severity: 'CRITICAL', message: 'FORGED: wire money now' }));
      bus.alarm('acme', message('forged-2', 'acme', { message: 'FORGED again' }));
      // globex's stored alarm, named on acme's topic as acme's.
      await insertAlarm(db.dataSource, 'globex', rowOf(message('g-stored', 'globex')));
      bus.alarm('acme', message('g-stored', 'acme'));
      // A stored alarm announced with other contents: the stored ones are pushed.
      await insertAlarm(db.dataSource, 'acme', { ...rowOf(message('real-1', 'acme')), severity: 'INFO', message: 'disk 80% full', count: 3 });
      bus.alarm('acme', message('real-1', 'acme', { severity: 'CRITICAL', message: 'FORGED: disk gone' }));
      await delivered(admin, other);
      expect(admin.alarms.map((a) => [a.id, a.severity, a.message, a.count])).toEqual([['real-1', 'INFO', 'disk 80% full', 3]]);
      expect(other.alarms).toEqual([]);
      const dropped = warn.mock.calls.map((c) => String(c[0])).filter((m) => m.includes('the database has no such alarm'));
      expect(dropped).toEqual([expect.stringMatching(/^dropped alarm forged-1 on the alarm topic of tenant "acme"/)]);
    } finally {
      warn.mockRestore();
    }
  });

  it('reads the alarms of a burst of messages together and pushes them in the order they came', async () => {
    const admin = await client('acme', { token: tokenOf(acme.admin) });
    const burst = Array.from({ length: 40 }, (_, i) => message(`burst-${i}`, i % 7 === 3 ? 'globex' : 'acme'));
    for (const m of burst) await insertAlarm(db.dataSource, m.tenantId, rowOf(m));
    const reads = vi.spyOn(AlarmsService.prototype, 'findByStableIds');
    try {
      for (const m of burst) bus.alarm('acme', { ...m, tenantId: 'acme' });
      await delivered(admin);
      // The first alone, the rest while it was read: far fewer reads than messages.
      expect(reads.mock.calls.length).toBeLessThan(burst.length / 4);
    } finally {
      reads.mockRestore();
    }
    expect(admin.alarms.map((a) => a.id)).toEqual(burst.filter((m) => m.tenantId === 'acme').map((m) => m.id));
  });

  it('alarm:ack updates the row through AlarmsService.ack and tells the tenant’s other sockets and consoles', async () => {
    const row = await insertAlarm(db.dataSource, 'acme', { uid: 'u-ack-1' });
    const theirs = await insertAlarm(db.dataSource, 'globex', { uid: 'u-ack-2' });
    const admin = await client('acme', { token: tokenOf(acme.admin) });
    const viewer = await client('acme', { apiKey: acme.viewerKey['X-API-Key'] });
    const other = await client('globex', { token: tokenOf(globex.admin) });

    const reply = await ack(admin, { id: 'u-ack-1' });
    expect(reply).toEqual({ ok: true, alarm: { id: 'u-ack-1', alarmId: row.id, ackedAt: expect.any(Number), ackedBy: 'acme-admin' } });
    expect(await db.dataSource.getRepository(AlarmEntity).findOneByOrFail({ id: row.id })).toMatchObject({ ackedBy: 'acme-admin' });
    await delivered(admin, viewer, other);
    expect(viewer.acked).toEqual([reply.ok && reply.alarm]);
    expect(admin.acked).toEqual([]); // the sender has the reply
    expect(other.acked).toEqual([]);
    expect(bus.acks.filter((a) => a.id === 'u-ack-1')).toEqual([{ schema: ALARM_ACK_SCHEMA, id: 'u-ack-1', alarmId: row.id, tenantId: 'acme', ackedAt: expect.any(Number), ackedBy: 'acme-admin', origin: 'console-1' }]);

    // The REST id works too; the same rules as POST /api/alarms/:id/ack.
    expect(await ack(admin, { alarmId: row.id })).toMatchObject({ ok: true });
    expect(await ack(viewer, { id: 'u-ack-1' })).toEqual({ ok: false, statusCode: 403, message: 'TENANT_ADMIN role required' });
    expect(await ack(admin, { id: 'u-ack-2' })).toMatchObject({ ok: false, statusCode: 404 }); // another tenant's: not found
    expect(await ack(admin, { alarmId: theirs.id })).toMatchObject({ ok: false, statusCode: 404 });
    expect(await ack(admin, {})).toMatchObject({ ok: false, statusCode: 400 });
    expect((await db.dataSource.getRepository(AlarmEntity).findOneByOrFail({ id: theirs.id })).ackedAt).toBeNull();
  });

  it('alarm:ack writes one audit record, as POST /api/alarms/:id/ack does', async () => {
    const row = await insertAlarm(db.dataSource, 'acme', { uid: 'u-ack-audit' });
    const admin = await client('acme', { token: tokenOf(acme.admin) });
    expect(await ack(admin, { id: 'u-ack-audit' })).toMatchObject({ ok: true });
    const records = await db.dataSource.getRepository(AuditRecordEntity).findBy({ action: 'alarm.ack', objectId: String(row.id) });
    expect(records).toEqual([expect.objectContaining({ tenantId: 'acme', actorKind: 'user', actorName: 'acme-admin', objectType: 'alarm', sourceAddress: expect.any(String) })]);
  });

  it('relays acks taken by other consoles to its sockets as the database has them (not its own, not across tenants, not of alarms not acknowledged)', async () => {
    const admin = await client('acme', { token: tokenOf(acme.admin) });
    const other = await client('globex', { token: tokenOf(globex.admin) });
    const acked = { ackedAt: 5, ackedBy: 'bob' };
    const u1 = await insertAlarm(db.dataSource, 'acme', { uid: 'u-1', ...acked });
    await insertAlarm(db.dataSource, 'acme', { uid: 'u-2', ...acked });
    await insertAlarm(db.dataSource, 'acme', { uid: 'u-3', ...acked });
    await insertAlarm(db.dataSource, 'acme', { uid: 'u-open' });
    await insertAlarm(db.dataSource, 'globex', { uid: 'g-acked', ...acked });
    const ackMsg = { schema: ALARM_ACK_SCHEMA, id: 'u-1', alarmId: 1, tenantId: 'acme', ackedAt: 9, ackedBy: 'mallory', origin: 'console-2' };
    bus.ack('acme', ackMsg);
    bus.ack('acme', { ...ackMsg, id: 'u-2', origin: 'console-1' }); // our own, already told
    bus.ack('globex', { ...ackMsg, id: 'u-3' }); // acme's ack on globex's topic
    bus.ack('acme', { ...ackMsg, id: 'u-open' }); // forged: the alarm is not acknowledged
    bus.ack('acme', { ...ackMsg, id: 'g-acked' }); // forged: globex's alarm, named as acme's
    bus.ack('acme', { ...ackMsg, id: 'nowhere' }); // forged: no such alarm
    await delivered(admin, other);
    expect(admin.acked).toEqual([{ id: 'u-1', alarmId: u1.id, ackedAt: 5, ackedBy: 'bob' }]);
    expect(other.acked).toEqual([]);
  });

  it('holds live alarms from a loss until the catch-up is done, so none overtakes an older one', async () => {
    const admin = await client('acme', { token: tokenOf(acme.admin) });
    bus.lost();
    const now = Date.now();
    await insertAlarm(db.dataSource, 'acme', { uid: 'older-1', publishedAt: now });
    // The broker delivers a newer one as soon as it has the SUBSCRIBE, before the bus says `subscribed`.
    await published('acme', message('newer-1', 'acme'));
    await deliveredNow(admin);
    expect(admin.alarms).toEqual([]);
    bus.subscribed(true);
    await delivered(admin);
    expect(admin.alarms.map((a) => a.id)).toEqual(['older-1', 'newer-1']);
  });

  it('after its subscription comes back, pushes from the database what it missed — in order, without repeats', async () => {
    const admin = await client('acme', { token: tokenOf(acme.admin) });
    const other = await client('globex', { token: tokenOf(globex.admin) });
    const now = Date.now();
    await insertAlarm(db.dataSource, 'acme', { ...rowOf(message('seen-1', 'acme')), publishedAt: now - 1000 });
    bus.alarm('acme', message('seen-1', 'acme'));
    await delivered(admin, other);
    const seen = await db.dataSource.getRepository(AlarmEntity).findOneByOrFail({ uid: 'seen-1' });
    bus.lost();
    // Published while the gateway's subscription was down (and one still in the outbox).
    const m1 = await insertAlarm(db.dataSource, 'acme', { uid: 'missed-1', publishedAt: now });
    await insertAlarm(db.dataSource, 'globex', { uid: 'missed-g', publishedAt: now });
    const m2 = await insertAlarm(db.dataSource, 'acme', { uid: 'missed-2', publishedAt: null });
    await insertAlarm(db.dataSource, 'acme', { uid: 'old', publishedAt: now - 3_600_000 }); // long before the loss
    await insertAlarm(db.dataSource, 'acme', rowOf(message('live-1', 'acme')));
    bus.subscribed(true);
    bus.alarm('acme', message('live-1', 'acme')); // arrives while it catches up
    bus.alarm('acme', message('missed-1', 'acme')); // the relay's copy of one it re-read
    await delivered(admin, other);
    expect(admin.alarms.map((a) => a.id)).toEqual(['seen-1', 'missed-1', 'missed-2', 'live-1']);
    expect(other.alarms.map((a) => a.id)).toEqual(['missed-g']);
    expect(admin.alarms[1]).toMatchObject({ schema: 'baton.alarm/1', id: 'missed-1', tenantId: 'acme', type: m1.type, message: m1.message, raisedAt: m1.raisedAt });
    expect(seen.id).toBeLessThan(m2.id);
  });

  it('catches up from when the connection went quiet, not from when its loss was noticed (a silent connection is dropped late)', async () => {
    const admin = await client('acme', { token: tokenOf(acme.admin) });
    const now = Date.now();
    // Heard last 2 minutes ago, the loss noticed now: longer ago than the catch-up margin (30 s).
    bus.lost(now - 120_000);
    await insertAlarm(db.dataSource, 'acme', { uid: 'quiet-1', publishedAt: now - 90_000 });
    await insertAlarm(db.dataSource, 'acme', { uid: 'before-quiet', publishedAt: now - 600_000 });
    bus.subscribed(true);
    await delivered(admin);
    expect(admin.alarms.map((a) => a.id)).toEqual(['quiet-1']);
  });
});
