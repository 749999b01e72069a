import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DataSource } from 'typeorm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WEBHOOK_GIVE_UP_MS, type Clock } from '@baton/domain';
import { signWebhook, WEBHOOK_HEADERS, type AlarmMessage } from '@baton/messaging';
import { inTransaction } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { readEngineConfig } from '../config/engine-config';
import { EngineMetrics } from '../metrics/engine-metrics';
import { seedTenant } from '../testing/dispatch-side-kit';
import { Alarms } from './alarms';
import { OutboxRelay } from './outbox-relay';
import { OutboxSignal } from './outbox-signal';
import { FakeAlarmBus } from './testing/fake-alarm-bus';
import { WebhookSender } from './webhook-sender';

class TestClock implements Clock {
  at = Date.now();
  now(): number {
    return this.at;
  }
}

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
  let clock: TestClock;
  beforeEach(async () => {
    await db.clear();
    await seedTenant(db.dataSource, { id: 'acme' });
    clock = new TestClock();
  });
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
  });

  function machinery(ds: DataSource) {
    const signal = new OutboxSignal(ds);
    const relay = new OutboxRelay(ds, readEngineConfig({}, { alarmRelayIntervalMs: 60_000 }), clock, new FakeAlarmBus(), signal, new EngineMetrics({ defaultMetrics: false }));
    return { relay, alarms: new Alarms(signal), sender: new WebhookSender(ds, clock) };
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
      clock.at += 10_000;
    }
    expect(await m.sender.tick()).toMatchObject({ delivered: 1, failed: 0 });
    clock.at += 60_000;
    expect(await m.sender.tick()).toMatchObject({ delivered: 0, failed: 0 }); // never again
    expect(hook.got).toHaveLength(4);
    const last = hook.got[3];
    const message = JSON.parse(last.body) as AlarmMessage;
    expect(message).toMatchObject({ tenantId: 'acme', type: 'FAILED', message: 'run 7 failed', count: 1 });
    expect(last.headers[WEBHOOK_HEADERS.signature]).toBe(signWebhook('whsec_test', Number(last.headers[WEBHOOK_HEADERS.timestamp]), last.body));
    expect(new Set(hook.got.map((g) => g.headers[WEBHOOK_HEADERS.delivery])).size).toBe(1); // one delivery, tried four times
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
    clock.at += WEBHOOK_GIVE_UP_MS;
    expect(await m.sender.tick()).toMatchObject({ givenUp: 1 });
    clock.at += 3_600_000;
    expect(await m.sender.tick()).toMatchObject({ delivered: 0, failed: 0, givenUp: 0 });
    const [row] = (await db.dataSource.query('SELECT attempts, last_error, failed_at FROM webhook_deliveries WHERE failed_at IS NOT NULL')) as Array<{ attempts: number; last_error: string }>;
    expect(row).toMatchObject({ last_error: 'HTTP 500' });
    expect(Number(row.attempts)).toBe(2);
  });
});
