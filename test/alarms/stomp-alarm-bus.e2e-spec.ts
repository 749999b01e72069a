import { afterEach, describe, expect, it } from 'vitest';
import {
  ALARM_ACK_SCHEMA,
  AlarmBusUnavailableError,
  buildAlarmMessage,
  StompAlarmBus,
  type AlarmMessage,
  type ReceivedAck,
  type ReceivedAlarm,
} from '@baton/messaging';
import { privateBroker, testBrokerUrl } from '../support/broker';
import { uniqueTopicPrefix, waitFor } from './support/alarm-stack';
import { foreignSubscribe } from './support/foreign-stomp';

const alarm = (id: string, tenantId: string): AlarmMessage =>
  buildAlarmMessage({ id, tenantId, type: 'BUSINESS', severity: 'WARNING', taskId: 1, runId: 2, executorId: 3, message: `m ${id} ✓`, data: { id }, count: 1, raisedAt: 5, source: 'engine' });

/** A STOMP port of this file alone: its broker requires a login. */
const AUTH_BROKER_PORT = Number(process.env.BATON_AUTH_BROKER_PORT ?? 61624);

/** The STOMP adapter (stompit) against the real ActiveMQ. */
describe('StompAlarmBus on ActiveMQ', () => {
  const buses: StompAlarmBus[] = [];
  const bus = (url: string, prefix: string, extra: Partial<ConstructorParameters<typeof StompAlarmBus>[0]> = {}) => {
    const b = new StompAlarmBus({ url, topicPrefix: prefix, heartbeatMs: 1000, ...extra });
    buses.push(b);
    return b;
  };
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((b) => b.close()));
  });

  it('publishes with a broker receipt to <prefix><tenant>; a subscriber hears every tenant, with the topic’s tenant', async () => {
    const prefix = uniqueTopicPrefix();
    const publisher = bus(testBrokerUrl(), prefix);
    const subscriber = bus(testBrokerUrl(), prefix);
    const got: ReceivedAlarm[] = [];
    const acks: ReceivedAck[] = [];
    let subscribed = 0;
    subscriber.subscribe({ alarm: (m) => got.push(m), ack: (m) => acks.push(m), subscribed: () => subscribed++ });
    await waitFor(() => subscribed === 1 && publisher.connected, 10_000, 'connected and subscribed');
    const foreign = await foreignSubscribe(testBrokerUrl(), `/topic/${prefix}acme`);
    const sent = [alarm('a1', 'acme'), alarm('g1', 'globex'), alarm('a2', 'acme')];
    for (const m of sent) await publisher.publish(m); // each resolves on its RECEIPT
    await publisher.publishAck({ schema: ALARM_ACK_SCHEMA, id: 'a1', alarmId: 1, tenantId: 'acme', ackedAt: 9, ackedBy: 'ann', origin: 'c1' });
    await waitFor(() => got.length === 3 && acks.length === 1, 30_000, 'the messages');
    expect(got.map((m) => [m.topicTenantId, m.payload])).toEqual([
      ['acme', sent[0]],
      ['globex', sent[1]],
      ['acme', sent[2]],
    ]);
    expect(acks[0]).toMatchObject({ topicTenantId: 'acme', payload: { id: 'a1', origin: 'c1' } });
    await waitFor(() => foreign.messages.length === 2, 30_000, 'the foreign subscriber');
    expect(foreign.messages.map((m) => JSON.parse(m.body))).toEqual([sent[0], sent[2]]); // its tenant's topic only, no acks
    await foreign.close();
  });

  it('a broker that scripts/activemq.sh starts with a user and password refuses anonymous clients; the URL it prints logs in', async () => {
    const broker = await privateBroker(AUTH_BROKER_PORT, { user: 'baton', password: 'pa:ss w&rd<1>' });
    try {
      expect(broker.url).toBe(`stomp://baton:pa%3Ass%20w%26rd%3C1%3E@127.0.0.1:${AUTH_BROKER_PORT}`);
      const prefix = uniqueTopicPrefix();
      const member = bus(broker.url, prefix);
      const got: ReceivedAlarm[] = [];
      let subscribed = false;
      member.subscribe({ alarm: (m) => got.push(m), subscribed: () => (subscribed = true) });
      await waitFor(() => subscribed, 30_000, 'the logged-in client subscribed');
      await member.publish(alarm('in', 'acme'));
      await waitFor(() => got.length === 1, 30_000, 'its own message');
      const refusals: string[] = [];
      const anonymous = bus(`stomp://127.0.0.1:${AUTH_BROKER_PORT}`, prefix, {
        maxReconnectDelayMs: 200,
        logger: { info: () => undefined, warn: (m) => refusals.push(m), error: (m) => refusals.push(m) },
      });
      await waitFor(() => refusals.length > 0, 30_000, 'the anonymous client refused');
      expect(refusals[0]).toMatch(/invalid/);
      expect(anonymous.connected).toBe(false);
      await expect(anonymous.publish(alarm('forged', 'acme'))).rejects.toBeInstanceOf(AlarmBusUnavailableError);
    } finally {
      await Promise.all(buses.splice(0).map((b) => b.close()));
      await broker.stop();
    }
  });

  it('without a broker a publish fails at once; a failover list moves on to the next broker', async () => {
    const prefix = uniqueTopicPrefix();
    // "At once": not after a connect or receipt timeout — set far apart from anything else here.
    const TIMEOUT_MS = 20_000;
    const nowhere = bus('stomp://127.0.0.1:1', prefix, { maxReconnectDelayMs: 200, connectTimeoutMs: TIMEOUT_MS, receiptTimeoutMs: TIMEOUT_MS });
    const started = Date.now();
    await expect(nowhere.publish(alarm('x', 'acme'))).rejects.toBeInstanceOf(AlarmBusUnavailableError);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS);

    const listed = bus(`failover:(stomp://127.0.0.1:1,${testBrokerUrl()})`, prefix, { maxReconnectDelayMs: 200 });
    await waitFor(() => listed.connected, 10_000, 'connected to the second broker of the list');
    await listed.publish(alarm('y', 'acme'));
  });

  it('close() stops it: pending and later publishes fail, listeners hear nothing more', async () => {
    const prefix = uniqueTopicPrefix();
    const b = bus(testBrokerUrl(), prefix);
    await waitFor(() => b.connected, 10_000, 'connected');
    await b.close();
    expect(b.connected).toBe(false);
    await expect(b.publish(alarm('z', 'acme'))).rejects.toBeInstanceOf(AlarmBusUnavailableError);
  });

  /** Blocks this process's event loop — both buses' — as a loaded machine or a long synchronous task does. */
  const stall = (ms: number) => {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      // busy: no timer, no socket read
    }
  };

  it('a healthy connection survives traffic and a stall shorter than its tolerance (ActiveMQ puts off a keepalive after each frame it sends)', async () => {
    const BEAT_MS = 1000;
    const prefix = uniqueTopicPrefix();
    const publisher = bus(testBrokerUrl(), prefix, { heartbeatMs: BEAT_MS });
    const subscriber = bus(testBrokerUrl(), prefix, { heartbeatMs: BEAT_MS });
    const drops: string[] = [];
    publisher.onConnectionChange((up) => up || drops.push('publisher'));
    subscriber.onConnectionChange((up) => up || drops.push('subscriber'));
    const got: unknown[] = [];
    let subscribed = 0;
    subscriber.subscribe({ alarm: (m) => got.push(m.payload), subscribed: () => subscribed++ });
    await waitFor(() => subscribed === 1 && publisher.connected, 10_000, 'connected and subscribed');
    const delivered = (n: number) => waitFor(() => got.length === n || drops.length > 0, 30_000, `message ${n} or a drop`);
    // Two reads from the broker on each connection after a frame it sent: its keepalives, the first
    // put off up to 2 beats by that frame (the publisher's RECEIPT, the subscriber's MESSAGE) —
    // longer than stompit's 1.1-beat window of old, which dropped the connection before it came.
    const keepalivesAfter = async (what: string) => {
      const since = [publisher.readsFromBroker, subscriber.readsFromBroker];
      await waitFor(() => drops.length > 0 || (publisher.readsFromBroker >= since[0] + 2 && subscriber.readsFromBroker >= since[1] + 2), 30_000, `keepalives after ${what} or a drop`);
    };
    for (let i = 1; i <= 5; i++) {
      await publisher.publish(alarm(`t${i}`, 'acme'));
      await delivered(i);
      await keepalivesAfter(`message ${i}`);
    }
    // 3.2 beats without a byte from us: longer than two of ActiveMQ's 1.5-beat windows of old, so
    // one fell inside; within the 5 beats both sides tolerate now.
    stall(3.2 * BEAT_MS);
    if (drops.length === 0) await publisher.publish(alarm('after', 'acme')).catch(() => undefined);
    await delivered(6);
    expect(drops).toEqual([]);
    expect(got).toHaveLength(6);
  }, 60_000);

  it('a stall beyond the tolerance drops it; it reconnects and subscribes again', async () => {
    const BEAT_MS = 200;
    const prefix = uniqueTopicPrefix();
    const publisher = bus(testBrokerUrl(), prefix, { heartbeatMs: 5000 });
    const subscriber = bus(testBrokerUrl(), prefix, { heartbeatMs: BEAT_MS, maxReconnectDelayMs: 200 });
    let lost = 0;
    const resumed: boolean[] = [];
    const got: unknown[] = [];
    subscriber.subscribe({ alarm: (m) => got.push(m.payload), lost: () => lost++, subscribed: ({ resumed: r }) => resumed.push(r) });
    await waitFor(() => resumed.length === 1 && publisher.connected, 10_000, 'connected and subscribed');
    // 15 beats silent: ActiveMQ (a byte from us within each 6-beat window) has closed it by then.
    stall(15 * BEAT_MS);
    await waitFor(() => resumed.length === 2, 30_000, 'subscribed again');
    expect(resumed).toEqual([false, true]);
    expect(lost).toBe(1);
    await publisher.publish(alarm('again', 'acme'));
    await waitFor(() => got.length === 1, 30_000, 'the message after the reconnection');
  }, 60_000);
});
