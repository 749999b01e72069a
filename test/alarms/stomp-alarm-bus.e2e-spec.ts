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
import { testBrokerUrl } from '../support/broker';
import { uniqueTopicPrefix, waitFor } from './support/alarm-stack';
import { foreignSubscribe } from './support/foreign-stomp';

const alarm = (id: string, tenantId: string): AlarmMessage =>
  buildAlarmMessage({ id, tenantId, type: 'BUSINESS', severity: 'WARNING', taskId: 1, runId: 2, executorId: 3, message: `m ${id} ✓`, data: { id }, count: 1, raisedAt: 5, source: 'engine' });

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
});
