import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlarmEntity, inTransaction } from '@baton/persistence';
import { Alarms } from '../../apps/engine/src';
import type { AlarmAckReply } from '../../apps/console/src';
import type { SeededTenant } from '../console/console-test-kit';
import { testBrokerUrl } from '../support/broker';
import { useTestDatabase } from '../support/databases';
import {
  fence,
  isFence,
  openBrowser,
  seedAlarmTenant,
  startConsoleProcess,
  startEngineNode,
  tokenOf,
  uniqueTenantId,
  uniqueTopicPrefix,
  waitFor,
  type Browser,
  type ConsoleProcess,
  type EngineNode,
} from './support/alarm-stack';

/**
 * "Several console processes may run: a browser connected to any of them gets every alarm of its
 * tenant exactly once." Two consoles as OS processes (apps/console/src/main.ts, configured by
 * BATON_DB_URL / BATON_BROKER_URL as in production), each with browsers of two tenants.
 */
describe('two console processes', () => {
  const db = useTestDatabase('mysql');
  const prefix = uniqueTopicPrefix();
  let engine: EngineNode;
  const consoles: ConsoleProcess[] = [];
  let acme: SeededTenant;
  let globex: SeededTenant;
  const browsers: Browser[] = [];

  beforeAll(async () => {
    const brokerUrl = testBrokerUrl();
    engine = await startEngineNode(db.url, brokerUrl, prefix);
    consoles.push(...(await Promise.all([startConsoleProcess(db.url, brokerUrl, prefix), startConsoleProcess(db.url, brokerUrl, prefix)])));
    acme = await seedAlarmTenant(consoles[0], db.dataSource, uniqueTenantId('acme'));
    globex = await seedAlarmTenant(consoles[1], db.dataSource, uniqueTenantId('globex'));
  }, 300_000);

  afterAll(async () => {
    for (const b of browsers) b.close();
    await Promise.all(consoles.map((c) => c.close()));
    await engine?.close();
  }, 60_000);

  const open = async (console: ConsoleProcess, auth: { token?: string; apiKey?: string }) => {
    const b = await openBrowser(console.url, auth);
    browsers.push(b);
    return b;
  };

  it('browsers on either console get every alarm of their tenant, once; acks reach the other console’s browsers', async () => {
    const [c1, c2] = consoles;
    const acmeOn1 = await open(c1, { token: tokenOf(acme.admin) });
    const acmeOn2 = await open(c2, { apiKey: acme.viewerKey['X-API-Key'] });
    const globexOn1 = await open(c1, { token: tokenOf(globex.viewer) });
    const globexOn2 = await open(c2, { token: tokenOf(globex.admin) });

    const alarms = engine.app.get(Alarms);
    const ds = engine.app.get(DataSource);
    const expected: Record<string, string[]> = { [acme.id]: [], [globex.id]: [] };
    for (let i = 0; i < 40; i++) {
      const tenant = i % 4 === 0 ? globex.id : acme.id;
      const message = `two consoles #${i}`;
      expected[tenant].push(message);
      await inTransaction(ds, (em) => alarms.raise(em, { tenantId: tenant, type: 'EXECUTOR_DOWN', message, now: Date.now() }));
    }
    await waitFor(
      () => acmeOn1.alarms.length >= 30 && acmeOn2.alarms.length >= 30 && globexOn1.alarms.length >= 10 && globexOn2.alarms.length >= 10,
      15_000,
      'every alarm at every browser',
    );
    await fence(engine, [[acme.id, [acmeOn1, acmeOn2]], [globex.id, [globexOn1, globexOn2]]]); // a repeat would have come before
    for (const [b, tenant] of [
      [acmeOn1, acme.id],
      [acmeOn2, acme.id],
      [globexOn1, globex.id],
      [globexOn2, globex.id],
    ] as const) {
      const got = b.alarms.filter((a) => !isFence(a));
      expect(got.map((a) => a.message)).toEqual(expected[tenant]);
      expect(new Set(got.map((a) => a.id)).size).toBe(expected[tenant].length);
    }

    // An ack on console 1 updates the row and reaches the tenant's browser on console 2 (over the broker).
    const target = acmeOn1.alarms[3];
    const reply = (await acmeOn1.socket.emitWithAck('alarm:ack', { id: target.id })) as AlarmAckReply;
    expect(reply).toMatchObject({ ok: true, alarm: { id: target.id, ackedBy: `${acme.id}-admin` } });
    await waitFor(() => acmeOn2.acked.length === 1, 30_000, 'the ack at console 2');
    expect(acmeOn2.acked[0]).toEqual(reply.ok && reply.alarm);
    expect((await db.dataSource.getRepository(AlarmEntity).findOneByOrFail({ uid: target.id })).ackedBy).toBe(`${acme.id}-admin`);
    // The ack is on acme's topic before the first fence: each console has handled it before that fence, and emitted it before the second.
    await fence(engine, [[acme.id, [acmeOn1, acmeOn2]], [globex.id, [globexOn1, globexOn2]]]);
    expect(globexOn1.acked).toEqual([]);
    expect(globexOn2.acked).toEqual([]);
  }, 60_000);
});
