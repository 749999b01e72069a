import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DataSource } from 'typeorm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock, WEBHOOK_GIVE_UP_MS } from '@baton/domain';
import { signWebhook, WEBHOOK_HEADERS, type AlarmMessage } from '@baton/messaging';
import { insertAuditRecords, inTransaction, queueAuditWebhookDeliveries } from '@baton/persistence';
import type { ResolveAll } from '@baton/protocol';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { readEngineConfig } from '../config/engine-config';
import { EngineMetrics } from '../metrics/engine-metrics';
import { seedTenant } from '../testing/dispatch-side-kit';
import { AlarmCounts } from './alarm-counts';
import { OutboxRelay } from './outbox-relay';
import { OutboxSignal } from './outbox-signal';
import { FakeAlarmBus } from './testing/fake-alarm-bus';
import { newAlarms } from './testing/new-alarms';
import { WebhookSender } from './webhook-sender';

/** An endpoint that answers `status()` and keeps what it got. */
async function endpoint(status: () => number): Promise<{ url: string; got: Array<{ headers: Record<string, string>; body: string }>; close: () => Promise<void> }> {
  const got: Array<{ headers: Record<string, string>; body: string }> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      got.push({ headers: req.headers as Record<string, string>, body });
      res.statusCode = status();
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got, close: () => new Promise((r) => server.close(() => r())) };
}

describe.each(TEST_DATABASES)('webhook deliveries on %s', (kind) => {
  const db = useTestDatabase(kind);
  const closers: Array<() => Promise<void>> = [];
  let clock: ManualClock;
  /** Every name resolves to `resolvesTo` (the machine has no DNS; a test says what a name answers). */
  let resolvesTo = '127.0.0.1';
  const resolve: ResolveAll = (_host, _options, callback) => callback(null, [{ address: resolvesTo, family: 4 }]);
  beforeEach(async () => {
    await db.clear();
    // The receivers of these tests listen on loopback: the operator allowed it for this tenant.
    await seedTenant(db.dataSource, { id: 'acme', executorNetworks: ['127.0.0.1'] });
    clock = new ManualClock(Date.now());
    resolvesTo = '127.0.0.1';
  });
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
  });

  function machinery(ds: DataSource) {
    const signal = new OutboxSignal();
    const counts = new AlarmCounts(ds, signal, clock);
    const relay = new OutboxRelay(ds, readEngineConfig({}, { alarmRelayIntervalMs: 60_000 }), clock, new FakeAlarmBus(), signal, new EngineMetrics({ defaultMetrics: false }), counts);
    return { relay, alarms: newAlarms(ds, signal, clock, counts), sender: new WebhookSender(ds, clock, resolve) };
  }
  const channel = (url: string, rule: { types?: string[] | null; min?: string } = {}) =>
    db.dataSource.query(`INSERT INTO webhook_channels (tenant_id, name, url, secret, alarm_types, min_severity, created_at) VALUES ('acme', ?, ?, 'whsec_test', ?, ?, 0)`, [
      `ch-${Math.random()}`,
      url,
      rule.types === undefined || rule.types === null ? null : JSON.stringify(rule.types),
      rule.min ?? 'INFO',
    ]);
  const raise = (m: ReturnType<typeof machinery>, type: 'FAILED' | 'START_LATE', message: string) =>
    inTransaction(db.dataSource, (em) => m.alarms.raise(em, { tenantId: 'acme', type, message, now: clock.now() }));

  it('POSTs each published alarm once, as the topic carries it, signed — retrying while the endpoint is down', async () => {
    let down = 3;
    const hook = await endpoint(() => (down-- > 0 ? 503 : 204));
    closers.push(hook.close);
    await channel(hook.url);
    const m = machinery(db.dataSource);
    await raise(m, 'FAILED', 'run 7 failed');
    await m.relay.relayOnce();
    for (let i = 0; i < 3; i++) {
      expect(await m.sender.tick()).toMatchObject({ delivered: 0, failed: 1 });
      expect(await m.sender.tick()).toMatchObject({ delivered: 0, failed: 0 }); // not due yet: 1 s, 2 s, 4 s
      clock.advance(10_000);
    }
    expect(await m.sender.tick()).toMatchObject({ delivered: 1, failed: 0 });
    clock.advance(60_000);
    expect(await m.sender.tick()).toMatchObject({ delivered: 0, failed: 0 }); // never again
    expect(hook.got).toHaveLength(4);
    const last = hook.got[3];
    const message = JSON.parse(last.body) as AlarmMessage;
    expect(message).toMatchObject({ tenantId: 'acme', type: 'FAILED', message: 'run 7 failed', count: 1 });
    expect(last.headers[WEBHOOK_HEADERS.signature]).toBe(signWebhook('whsec_test', Number(last.headers[WEBHOOK_HEADERS.timestamp]), last.body));
    expect(new Set(hook.got.map((g) => g.headers[WEBHOOK_HEADERS.delivery])).size).toBe(1); // one delivery, tried four times
  });

  it("POSTs each audit record to the channels that name AUDIT, signed, in the change's transaction; none to 'every type'", async () => {
    const auditHook = await endpoint(() => 204);
    const alarmsOnly = await endpoint(() => 204);
    closers.push(auditHook.close, alarmsOnly.close);
    await channel(auditHook.url, { types: ['AUDIT', 'FAILED'] });
    await channel(alarmsOnly.url);
    const record = (action: string) => ({
      at: clock.now(), tenantId: 'acme', actorKind: 'user' as const, actorName: 'ann', actorUserId: 1, actorApiKeyId: null, sourceAddress: '10.0.0.1',
      action, objectType: 'task', objectId: '7', before: { priority: 0 }, after: { priority: 9 },
    });
    const audit = (action: string) =>
      inTransaction(db.dataSource, async (em) => {
        await insertAuditRecords(em, [record(action)]);
        return queueAuditWebhookDeliveries(em, { tenantId: 'acme', now: clock.now() });
      });
    expect(await audit('task.update')).toBe(1);
    // A change that rolls back owes nothing.
    await expect(
      inTransaction(db.dataSource, async (em) => {
        await insertAuditRecords(em, [record('task.delete')]);
        await queueAuditWebhookDeliveries(em, { tenantId: 'acme', now: clock.now() });
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    const m = machinery(db.dataSource);
    expect(await m.sender.tick()).toMatchObject({ delivered: 1 });
    expect(alarmsOnly.got).toEqual([]);
    expect(auditHook.got).toHaveLength(1);
    const [got] = auditHook.got;
    expect(JSON.parse(got.body)).toMatchObject({ type: 'AUDIT', tenantId: 'acme', action: 'task.update', actor: { name: 'ann', address: '10.0.0.1' }, objectId: '7', before: { priority: 0 }, after: { priority: 9 } });
    expect(got.headers[WEBHOOK_HEADERS.signature]).toBe(signWebhook('whsec_test', Number(got.headers[WEBHOOK_HEADERS.timestamp]), got.body));
  });

  it('routes by alarm type and severity, and gives a delivery up after 24 h of failures', async () => {
    const critical = await endpoint(() => 500);
    const all = await endpoint(() => 200);
    closers.push(critical.close, all.close);
    await channel(critical.url, { types: ['FAILED'], min: 'CRITICAL' });
    await channel(all.url);
    const m = machinery(db.dataSource);
    await raise(m, 'START_LATE', 'late'); // WARNING
    await raise(m, 'FAILED', 'failed'); // CRITICAL
    await m.relay.relayOnce();
    await m.sender.tick();
    expect(all.got.map((g) => (JSON.parse(g.body) as AlarmMessage).message).sort()).toEqual(['failed', 'late']);
    expect(critical.got.map((g) => (JSON.parse(g.body) as AlarmMessage).message)).toEqual(['failed']);
    clock.advance(WEBHOOK_GIVE_UP_MS);
    expect(await m.sender.tick()).toMatchObject({ givenUp: 1 });
    clock.advance(3_600_000);
    expect(await m.sender.tick()).toMatchObject({ delivered: 0, failed: 0, givenUp: 0 });
    const [row] = (await db.dataSource.query('SELECT attempts, last_error, failed_at FROM webhook_deliveries WHERE failed_at IS NOT NULL')) as Array<{ attempts: number; last_error: string }>;
    expect(row).toMatchObject({ last_error: 'HTTP 500' });
    expect(Number(row.attempts)).toBe(2);
  });

  const lastError = async () => ((await db.dataSource.query('SELECT last_error FROM webhook_deliveries')) as Array<{ last_error: string | null }>).map((r) => r.last_error);

  it('refuses an endpoint on a range the tenant may not reach, at send time, naming the rule and echoing nothing (issue 21 finding 1)', async () => {
    const hook = await endpoint(() => 204);
    closers.push(hook.close);
    await channel(hook.url);
    await db.dataSource.query(`UPDATE tenants SET executor_networks = ? WHERE id = 'acme'`, [JSON.stringify(['10.99.0.0/16'])]);
    const m = machinery(db.dataSource);
    await raise(m, 'FAILED', 'run 7 failed');
    await m.relay.relayOnce();
    expect(await m.sender.tick()).toMatchObject({ delivered: 0, failed: 1 });
    expect(hook.got).toHaveLength(0);
    expect(await lastError()).toEqual(['127.0.0.1 is in loopback (127.0.0.0/8), not allowed for this tenant']);
  });

  it('judges a host name on what it resolves to when sent, not when saved (issue 21 finding 2: 169.254.169.254.nip.io)', async () => {
    const hook = await endpoint(() => 204);
    closers.push(hook.close);
    const port = new URL(hook.url).port;
    await channel(`http://169.254.169.254.nip.io:${port}/hook`);
    const m = machinery(db.dataSource);
    await raise(m, 'FAILED', 'run 7 failed');
    await m.relay.relayOnce();
    resolvesTo = '169.254.169.254';
    expect(await m.sender.tick()).toMatchObject({ delivered: 0, failed: 1 });
    expect(hook.got).toHaveLength(0);
    expect(await lastError()).toEqual(['169.254.169.254.nip.io resolves to an address in link-local (169.254.0.0/16), which Baton never calls']);
    resolvesTo = '127.0.0.1'; // rebound to the tenant's allowed address: delivered there, the address checked
    clock.advance(10_000);
    expect(await m.sender.tick()).toMatchObject({ delivered: 1 });
    expect(hook.got).toHaveLength(1);
  });

  it('says why a delivery failed without the address or port it tried', async () => {
    const hook = await endpoint(() => 204);
    await hook.close();
    await channel(hook.url);
    const m = machinery(db.dataSource);
    await raise(m, 'FAILED', 'run 7 failed');
    await m.relay.relayOnce();
    expect(await m.sender.tick()).toMatchObject({ failed: 1 });
    expect(await lastError()).toEqual(['could not connect']);
  });
});
