/**
 * Live run events read two index ranges per listening tenant — its runs going and its runs
 * ended in the last minute — never its history: an old run touched again is not an event, a
 * run of another tenant never is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunEventsService, type RunEventSink } from '../../apps/console/src/live/run-events';
import { useTestDatabase } from '../support/databases';
import { insertRun, seedTenant, startConsole, T0, type ConsoleTestApp } from './console-test-kit';

describe('live run events', () => {
  const db = useTestDatabase('sqlite');
  let t: ConsoleTestApp;
  const emitted: Array<{ tenantId: string; id: number; state: string }> = [];
  let events: RunEventsService;
  let listening = ['acme'];
  /** Called on each emit: a test's way to make a tenant's read take (clock) time. */
  let onEmit: (tenantId: string) => void = () => undefined;

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    await seedTenant(t, db.dataSource, 'acme');
    await seedTenant(t, db.dataSource, 'beta');
    events = t.app.get(RunEventsService);
    const sink: RunEventSink = {
      tenantsListening: () => listening,
      emit: (tenantId, _event, payload) => {
        emitted.push({ tenantId, id: (payload as { id: number }).id, state: (payload as { state: string }).state });
        onEmit(tenantId);
      },
    };
    events.start(sink, { intervalMs: 60_000 });
    await events.tick(); // the tenant's first listener: changes from now on
  });
  afterAll(async () => {
    events.stop();
    await t?.close();
  });

  it('emits runs going and runs just ended of the listening tenant, each change once', async () => {
    // From wherever the other test left the clock and the listeners: this test's changes only.
    listening = ['acme'];
    onEmit = () => undefined;
    await events.tick();
    emitted.length = 0;
    const at = t.clock.now();
    const going = await insertRun(db.dataSource, 'acme', 1, { state: 'ACCEPTED', updatedAt: at + 10 });
    const ended = await insertRun(db.dataSource, 'acme', 1, { state: 'SUCCEEDED', finishedAt: at + 5, updatedAt: at + 10 });
    await insertRun(db.dataSource, 'acme', 1, { state: 'SUCCEEDED', scheduledAt: at - 86_400_000, finishedAt: at - 86_400_000, updatedAt: at + 10 }); // history touched: no event
    await insertRun(db.dataSource, 'beta', 2, { state: 'ACCEPTED', updatedAt: at + 10 });
    t.clock.set(at + 20);
    await events.tick();
    expect(emitted.map((e) => e.id).sort()).toEqual([going.id, ended.id].sort());
    expect(emitted.every((e) => e.tenantId === 'acme')).toBe(true);
    await events.tick();
    expect(emitted).toHaveLength(2);
  });

  it('paces a tenant by what its reads cost: one whose read took 500 ms is read again 5 s later, another tenant every turn', async () => {
    listening = ['acme', 'beta'];
    t.clock.set(T0 + 1_000);
    await events.tick(); // beta's first listener
    emitted.length = 0;
    // acme's read "takes" 500 ms: the clock moves while its change is emitted.
    onEmit = (tenantId) => tenantId === 'acme' && t.clock.set(t.clock.now() + 500);
    const slow = await insertRun(db.dataSource, 'acme', 1, { state: 'ACCEPTED', updatedAt: T0 + 1_010 });
    t.clock.set(T0 + 1_020);
    await events.tick();
    expect(emitted.map((e) => e.id)).toEqual([slow.id]);
    onEmit = () => undefined;
    const acmeNext = await insertRun(db.dataSource, 'acme', 1, { state: 'ACCEPTED', updatedAt: T0 + 1_600 });
    const betaNext = await insertRun(db.dataSource, 'beta', 2, { state: 'ACCEPTED', updatedAt: T0 + 1_600 });
    t.clock.set(T0 + 1_800);
    await events.tick();
    expect(emitted.map((e) => e.id)).toEqual([slow.id, betaNext.id]); // acme waits: 10 × 500 ms from its read's start
    t.clock.set(T0 + 1_020 + 5_000);
    await events.tick();
    expect(emitted.map((e) => e.id)).toEqual([slow.id, betaNext.id, acmeNext.id]);
  });
});
