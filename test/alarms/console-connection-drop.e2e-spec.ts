import { DataSource, IsNull } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StompAlarmBus } from '@baton/messaging';
import { AlarmEntity, inTransaction } from '@baton/persistence';
import { Alarms } from '../../apps/engine/src';
import type { SeededTenant } from '../console/console-test-kit';
import { testBrokerUrl } from '../support/broker';
import { useTestDatabase } from '../support/databases';
import { freezableProxy, type FreezableProxy } from './support/freezable-proxy';
import {
  fence,
  openBrowser,
  seedAlarmTenant,
  startConsoleNode,
  startEngineNode,
  tokenOf,
  uniqueTenantId,
  uniqueTopicPrefix,
  waitFor,
  type Browser,
  type ConsoleNode,
  type EngineNode,
} from './support/alarm-stack';

/** The console bus's heart-beat: it notices a dead path 7–14 beats after it last heard the broker (stompHeartBeat). */
const BEAT_MS = 500;
const ALARMS = 10;

/**
 * "A console subscriber whose connection drops does not lose the pop-ups published while it was
 * away." The console's connection to the real ActiveMQ goes through a proxy that freezes it: the
 * path goes silent without a close, as when a network or a stalled peer dies, and only heart-beats
 * tell. The engine keeps publishing to the broker directly, so the alarms raised meanwhile are on
 * the topic (and marked published) while the console hears nothing — it notices the loss only
 * after its heart-beat tolerance, well after they were published, reconnects through the proxy
 * and must push each of them to the browser, once.
 */
describe("alarms survive the console's own broker connection going silent", () => {
  const db = useTestDatabase('mysql');
  const prefix = uniqueTopicPrefix();
  let proxy: FreezableProxy;
  let bus: StompAlarmBus;
  let engine: EngineNode;
  let consoleNode: ConsoleNode;
  let tenant: SeededTenant;
  let browser: Browser;
  const connections: boolean[] = [];

  beforeAll(async () => {
    const broker = new URL(testBrokerUrl().replace(/^stomp:/, 'http:'));
    proxy = await freezableProxy({ host: broker.hostname, port: Number(broker.port) });
    engine = await startEngineNode(db.url, testBrokerUrl(), prefix);
    bus = new StompAlarmBus({ url: proxy.url, topicPrefix: prefix, heartbeatMs: BEAT_MS, maxReconnectDelayMs: 200 });
    bus.onConnectionChange((connected) => connections.push(connected));
    // The margin covers clock skew between engines and consoles; one process here, so a small one:
    // far less than the time the console takes to notice the silent path.
    consoleNode = await startConsoleNode(db.url, null, prefix, { alarmBus: bus, alarmCatchUpMarginMs: 1000 });
    tenant = await seedAlarmTenant(consoleNode, db.dataSource, uniqueTenantId('acme'));
    browser = await openBrowser(consoleNode.url, { token: tokenOf(tenant.admin) });
  }, 120_000);

  afterAll(async () => {
    browser?.close();
    await consoleNode?.close();
    await bus?.close();
    await engine?.close();
    await proxy?.close();
  }, 60_000);

  it(`frozen while ${ALARMS} alarms are published: each reaches the browser once, in order, after the console reconnects`, async () => {
    const alarms = engine.app.get(Alarms);
    const ds = engine.app.get(DataSource);
    const raise = (message: string) => inTransaction(ds, (em) => alarms.raise(em, { tenantId: tenant.id, type: 'EXECUTOR_DOWN', message, now: Date.now() }));
    await raise('before');
    await waitFor(() => browser.alarms.length === 1, 30_000, 'the first alarm');

    connections.length = 0; // (its first connection)
    proxy.freeze();
    const expected: string[] = [];
    for (let i = 0; i < ALARMS; i++) {
      expected.push(`frozen #${i}`);
      await raise(`frozen #${i}`);
    }
    // On the topic while the console's path is silent.
    await waitFor(async () => (await ds.getRepository(AlarmEntity).countBy({ publishedAt: IsNull() })) === 0, 30_000, 'the alarms published');

    const frozen = () => browser.alarms.filter((a) => a.message.startsWith('frozen'));
    await waitFor(() => frozen().length >= ALARMS, 60_000, 'every alarm of the silent time at the browser');
    expect(connections).toEqual([false, true]); // noticed, dropped and made again
    await fence(engine, [[tenant.id, [browser]]]); // a repeat would have come before
    expect(frozen().map((a) => a.message)).toEqual(expected);
    expect(new Set(browser.alarms.map((a) => a.id)).size).toBe(browser.alarms.length);
  }, 120_000);
});
