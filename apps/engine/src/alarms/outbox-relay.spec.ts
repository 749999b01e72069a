import { IsNull, type DataSource } from 'typeorm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '@baton/domain';
import { AlarmEntity, inTransaction, openDatabase } from '@baton/persistence';
import { alarmMessageOf, type AlarmBus } from '@baton/messaging';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { readEngineConfig } from '../config/engine-config';
import { EngineMetrics } from '../metrics/engine-metrics';
import { eventually, seedTenant } from '../testing/dispatch-side-kit';
import { AlarmCounts } from './alarm-counts';
import { OutboxRelay } from './outbox-relay';
import { OutboxSignal } from './outbox-signal';
import type { Alarms } from './alarms';
import { FakeAlarmBus } from './testing/fake-alarm-bus';
import { newAlarms } from './testing/new-alarms';

/** A relay (and the Alarms that wake it) on a data source, as EngineModule wires them. */
function relayOn(ds: DataSource, bus: AlarmBus, batch = 50) {
  const config = readEngineConfig({}, { alarmRelayIntervalMs: 60_000, alarmRelayBatch: batch });
  const signal = new OutboxSignal();
  const counts = new AlarmCounts(ds, signal, systemClock);
  const relay = new OutboxRelay(ds, config, systemClock, bus, signal, new EngineMetrics({ defaultMetrics: false }), counts);
  return { relay, alarms: newAlarms(ds, signal, systemClock, counts) };
}

describe.each(TEST_DATABASES)('alarm outbox relay on %s', (kind) => {
  const db = useTestDatabase(kind);
  const disposers: Array<() => unknown> = [];
  beforeEach(async () => {
    await db.clear();
    await seedTenant(db.dataSource, { id: 'acme' });
    await seedTenant(db.dataSource, { id: 'globex' });
  });
  afterEach(async () => {
    for (const d of disposers.splice(0)) await d();
  });

  /** Raises `n` alarms of a tenant (no task: never collapsed), each in its own transaction; returns their messages' texts. */
  async function raise(alarms: Alarms, tenantId: string, n: number, from = 0): Promise<string[]> {
    const texts: string[] = [];
    for (let i = from; i < from + n; i++) {
      const message = `${tenantId} #${i}`;
      await inTransaction(db.dataSource, (em) => alarms.raise(em, { tenantId, type: 'EXECUTOR_DOWN', message, data: { i }, now: Date.now() }));
      texts.push(message);
    }
    return texts;
  }
  const pending = () => db.dataSource.getRepository(AlarmEntity).countBy({ publishedAt: IsNull() });
  const ofTenant = (bus: FakeAlarmBus, tenantId: string) => bus.published.filter((m) => m.tenantId === tenantId).map((m) => m.message);

  it('publishes each tenant’s alarms oldest first, marks them, and publishes nothing twice', async () => {
    const bus = new FakeAlarmBus();
    const r = relayOn(db.dataSource, bus, 7);
    const acme = await raise(r.alarms, 'acme', 10);
    const globex = await raise(r.alarms, 'globex', 4);
    let report = await r.relay.relayOnce();
    expect(report).toMatchObject({ published: 7 + 4, failed: false, more: true }); // acme: one full batch of 7, then the rest
    report = await r.relay.relayOnce();
    expect(report).toMatchObject({ published: 3, failed: false, more: false });
    expect(ofTenant(bus, 'acme')).toEqual(acme);
    expect(ofTenant(bus, 'globex')).toEqual(globex);
    expect(await pending()).toBe(0);
    expect(await r.relay.relayOnce()).toMatchObject({ published: 0 });
    expect(bus.published).toHaveLength(14);
    expect(new Set(bus.published.map((m) => m.id)).size).toBe(14);

    // The message is the row: stable id = uid, every field of the schema.
    const row = await db.dataSource.getRepository(AlarmEntity).findOneByOrFail({ message: 'acme #0' });
    expect(bus.published[0]).toEqual({
      schema: 'baton.alarm/1',
      id: row.uid,
      tenantId: 'acme',
      type: 'EXECUTOR_DOWN',
      severity: 'CRITICAL',
      taskId: null,
      runId: null,
      executorId: null,
      message: 'acme #0',
      data: { i: 0 },
      count: 1,
      raisedAt: row.raisedAt,
      source: 'engine',
    });
    expect(row.publishedAt).not.toBeNull();
  });

  it('while the bus is down the alarms wait; when it is back they go out, in order, once', async () => {
    const bus = new FakeAlarmBus();
    const r = relayOn(db.dataSource, bus);
    bus.setConnected(false);
    const first = await raise(r.alarms, 'acme', 5);
    expect(await r.relay.relayOnce()).toMatchObject({ published: 0, failed: true });
    expect(await pending()).toBe(5);
    const second = await raise(r.alarms, 'acme', 5, 5);
    bus.setConnected(true);
    expect(await r.relay.relayOnce()).toMatchObject({ published: 10, failed: false });
    expect(ofTenant(bus, 'acme')).toEqual([...first, ...second]);
  });

  it('a publish that fails mid-batch: what the broker confirmed is marked, the rest follows later in order', async () => {
    const bus = new FakeAlarmBus();
    const r = relayOn(db.dataSource, bus);
    const texts = await raise(r.alarms, 'acme', 6);
    bus.failPublish(3);
    expect(await r.relay.relayOnce()).toMatchObject({ published: 2, failed: true });
    expect(await pending()).toBe(4);
    bus.setConnected(true);
    expect(await r.relay.relayOnce()).toMatchObject({ published: 4, failed: false });
    expect(ofTenant(bus, 'acme')).toEqual(texts);
  });

  it('two engines relaying at once: each alarm published once, each tenant in order', async () => {
    const bus = new FakeAlarmBus(2);
    // A second engine: its own data source on the same database (MySQL); SQLite: one engine
    // per file, so the same data source (its transactions are serialised anyway).
    const other = kind === 'mysql' ? await openDatabase(db.url) : db.dataSource;
    if (other !== db.dataSource) disposers.push(() => other.destroy());
    const a = relayOn(db.dataSource, bus, 10);
    const b = relayOn(other, bus, 10);
    const acme = await raise(a.alarms, 'acme', 40);
    const globex = await raise(a.alarms, 'globex', 40);
    for (let i = 0; i < 50 && (await pending()) > 0; i++) await Promise.all([a.relay.relayOnce(), b.relay.relayOnce()]);
    expect(await pending()).toBe(0);
    expect(bus.published).toHaveLength(80);
    expect(new Set(bus.published.map((m) => m.id)).size).toBe(80);
    expect(ofTenant(bus, 'acme')).toEqual(acme);
    expect(ofTenant(bus, 'globex')).toEqual(globex);
    // Whether the two met on a tenant depends on the machine's speed: the step aside is the next test's.
  });

  it.runIf(kind === 'mysql')('an engine finding a tenant relayed by another (its row locked) steps aside and relays the others', async () => {
    const bus = new FakeAlarmBus(2);
    const r = relayOn(db.dataSource, bus, 10);
    const acme = await raise(r.alarms, 'acme', 3);
    const globex = await raise(r.alarms, 'globex', 3);
    // Another engine's relay pass on acme: it holds acme's tenant row until its transaction ends.
    const other = await openDatabase(db.url);
    disposers.push(() => other.destroy());
    const runner = other.createQueryRunner();
    await runner.startTransaction();
    try {
      await runner.query('SELECT id FROM tenants WHERE id = ? FOR UPDATE', ['acme']);
      expect(await r.relay.relayOnce()).toMatchObject({ skippedTenants: 1, failed: false });
      expect([ofTenant(bus, 'acme'), ofTenant(bus, 'globex')]).toEqual([[], globex]);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
    expect(await r.relay.relayOnce()).toMatchObject({ skippedTenants: 0, failed: false });
    expect(ofTenant(bus, 'acme')).toEqual(acme);
  });

  it('an alarm counted into while the broker takes it goes out again with its new count once its second is over, never stuck on the old one', async () => {
    const bus = new FakeAlarmBus();
    const r = relayOn(db.dataSource, bus);
    await raise(r.alarms, 'acme', 1);
    const publish = bus.publish.bind(bus);
    // Another engine counts a repeat into it between the relay's read and its mark (the read takes no lock; the row was still in the outbox for it).
    bus.publish = async (alarm) => {
      await publish(alarm);
      if (bus.published.length === 1) await db.dataSource.query('UPDATE alarms SET count = count + 1');
    };
    const row = async () => (await db.dataSource.getRepository(AlarmEntity).find())[0];
    expect(await r.relay.relayOnce()).toMatchObject({ published: 1, failed: false });
    expect(await row()).toMatchObject({ count: 2, publishedCount: 1, publishedAt: expect.any(Number) }); // the topic has 1
    await eventually(async () => ((await pending()) === 1 ? true : undefined), 'the alarm back in the outbox once its second is over');
    expect(await r.relay.relayOnce()).toMatchObject({ published: 1 });
    expect(bus.published.map((m) => m.count)).toEqual([1, 2]);
    expect(await row()).toMatchObject({ count: 2, publishedCount: 2 });
  });

  it('is woken by a committed alarm (no waiting for its poll), and not by a rolled-back one', async () => {
    const bus = new FakeAlarmBus();
    const r = relayOn(db.dataSource, bus); // polls every 60 s
    const passes = vi.spyOn(r.relay, 'relayOnce');
    r.relay.start();
    disposers.push(() => r.relay.stop());
    await eventually(async () => passes.mock.results.length > 0, 'the first pass');
    await passes.mock.results[0].value; // its first pass (nothing to do) is over: the next is a wake-up's or the poll's, 60 s on
    await inTransaction(db.dataSource, async (em) => {
      await r.alarms.raise(em, { tenantId: 'acme', type: 'EXECUTOR_UP', message: 'rolled back', now: Date.now() });
      throw new Error('rollback');
    }).catch(() => undefined);
    await raise(r.alarms, 'acme', 1);
    await eventually(async () => bus.published.length === 1, 'the alarm published, well before the 60 s poll', 20_000);
    expect(bus.published.map((m) => m.message)).toEqual(['acme #0']);
  });

  it('rows without a uid (older than uids) go out as row-<id>', async () => {
    const bus = new FakeAlarmBus();
    const r = relayOn(db.dataSource, bus);
    const row = await db.dataSource.getRepository(AlarmEntity).save({
      uid: null,
      tenantId: 'acme',
      type: 'FAILED',
      severity: 'CRITICAL',
      taskId: 3,
      runId: 9,
      executorId: null,
      message: 'old',
      data: null,
      count: 2,
      raisedAt: 5,
      publishedAt: null,
      ackedAt: null,
      ackedBy: null,
    });
    await r.relay.relayOnce();
    expect(bus.published).toEqual([alarmMessageOf({ ...row, uid: null })]);
    expect(bus.published[0]).toMatchObject({ id: `row-${row.id}`, count: 2, taskId: 3, runId: 9 });
  });
});
