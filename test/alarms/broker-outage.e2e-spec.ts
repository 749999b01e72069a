import { DataSource, IsNull } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlarmEntity, inTransaction } from '@baton/persistence';
import { Alarms } from '../../apps/engine/src';
import type { SeededTenant } from '../console/console-test-kit';
import { privateBroker, type PrivateBroker } from '../support/broker';
import { useTestDatabase } from '../support/databases';
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

/** A STOMP port of this file alone: it stops and starts its broker, the other files keep theirs. */
const OUTAGE_BROKER_PORT = Number(process.env.BATON_OUTAGE_BROKER_PORT ?? 61623);
/**
 * Long enough that the relay's and the gateway's reconnect backoff reaches its cap (3 s) and
 * retries from there; the issue's 30 s outage, with peers' figures, is `npm run bench -- faults --full`.
 */
const OUTAGE_MS = 10_000;
const ALARMS = 100;

/**
 * "With the broker stopped while 100 alarms are raised, then started again: all 100
 * arrive, none twice (by alarm id), in order per tenant." A private ActiveMQ (its own port and
 * data dir) is stopped under a running engine and console; 100 alarms of two tenants are raised
 * through the engine's Alarms (the outbox) while it is down; it is started again OUTAGE_MS after it
 * stopped. Both the relay's and the gateway's STOMP connections reconnect on their own.
 */
describe('alarms survive a broker outage', () => {
  const db = useTestDatabase('mysql');
  const prefix = uniqueTopicPrefix();
  let broker: PrivateBroker;
  let engine: EngineNode;
  let consoleNode: ConsoleNode;
  let acme: SeededTenant;
  let globex: SeededTenant;
  let mine: Browser;
  let theirs: Browser;

  beforeAll(async () => {
    broker = await privateBroker(OUTAGE_BROKER_PORT);
    engine = await startEngineNode(db.url, broker.url, prefix);
    consoleNode = await startConsoleNode(db.url, broker.url, prefix);
    acme = await seedAlarmTenant(consoleNode, db.dataSource, uniqueTenantId('acme'));
    globex = await seedAlarmTenant(consoleNode, db.dataSource, uniqueTenantId('globex'));
    mine = await openBrowser(consoleNode.url, { token: tokenOf(acme.admin) });
    theirs = await openBrowser(consoleNode.url, { apiKey: globex.viewerKey['X-API-Key'] });
  }, 120_000);

  afterAll(async () => {
    mine?.close();
    theirs?.close();
    await consoleNode?.close();
    await engine?.close();
    await broker?.stop();
  }, 60_000);

  it(`stopped ${OUTAGE_MS / 1000} s while ${ALARMS} alarms are raised, then started: all arrive, none twice, in order per tenant`, async () => {
    const alarms = engine.app.get(Alarms);
    const ds = engine.app.get(DataSource);
    const raise = (tenantId: string, message: string) =>
      inTransaction(ds, (em) => alarms.raise(em, { tenantId, type: 'EXECUTOR_DOWN', message, data: { probe: message }, now: Date.now() }));

    // The pipe works before the outage.
    await raise(acme.id, 'before');
    await raise(globex.id, 'before');
    await waitFor(() => mine.alarms.length === 1 && theirs.alarms.length === 1, 10_000, 'the first alarms');

    await broker.stop();
    const stoppedAt = Date.now();
    const expected: Record<string, string[]> = { [acme.id]: [], [globex.id]: [] };
    for (let i = 0; i < ALARMS; i++) {
      const tenant = i % 2 === 0 ? acme.id : globex.id;
      const message = `outage #${i}`;
      expected[tenant].push(message);
      await raise(tenant, message);
      await new Promise((r) => setTimeout(r, 50)); // pacing, not a wait: spread over ~5 s of the outage
    }
    expect(await db.dataSource.getRepository(AlarmEntity).countBy({ publishedAt: IsNull() })).toBe(ALARMS);
    expect(mine.alarms).toHaveLength(1);
    await new Promise((r) => setTimeout(r, Math.max(0, stoppedAt + OUTAGE_MS - Date.now())));

    const restartAt = Date.now();
    await broker.start();
    const upAt = Date.now();
    const outage = (a: Browser) => a.alarms.filter((x) => x.message.startsWith('outage'));
    await waitFor(() => outage(mine).length >= ALARMS / 2 && outage(theirs).length >= ALARMS / 2, 60_000, 'every alarm after the restart');
    const lastArrival = Math.max(...[...mine.arrivedAt.values(), ...theirs.arrivedAt.values()]);
    console.log(
      `[broker outage] down ${restartAt - stoppedAt} ms; broker start took ${upAt - restartAt} ms; ` +
        `all ${ALARMS} alarms at the browsers ${lastArrival - upAt} ms after the broker was up`,
    );
    await fence(engine, [[acme.id, [mine]], [globex.id, [theirs]]]); // a stray would have come before

    for (const [browser, tenant] of [
      [mine, acme.id],
      [theirs, globex.id],
    ] as const) {
      const got = outage(browser);
      expect(got.map((a) => a.message)).toEqual(expected[tenant]); // all, in order, once
      expect(new Set(got.map((a) => a.id)).size).toBe(ALARMS / 2);
      expect(browser.alarms.every((a) => a.tenantId === tenant)).toBe(true);
    }
    // Every alarm marked published (the relay marks one after the broker's receipt: the fence's may still be on its way).
    await waitFor(async () => (await db.dataSource.getRepository(AlarmEntity).countBy({ publishedAt: IsNull() })) === 0, 30_000, 'the outbox drained');
  }, 180_000);
});
