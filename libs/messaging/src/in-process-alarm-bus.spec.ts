import { describe, expect, it } from 'vitest';
import type { ReceivedAlarm } from './alarm-bus';
import { buildAlarmMessage, type AlarmMessage } from './alarm-message';
import { InProcessAlarmBus } from './in-process-alarm-bus';
import { RecentIds } from './recent-ids';

const alarm = (id: string, tenantId = 'acme'): AlarmMessage =>
  buildAlarmMessage({ id, tenantId, type: 'BUSINESS', severity: 'INFO', taskId: null, runId: null, executorId: null, message: id, data: { n: 1 }, count: 1, raisedAt: 1, source: 'engine' });

describe('in-process alarm bus (embedded mode)', () => {
  it('delivers to the subscribers, in publish order, as fresh JSON on the tenant topic', async () => {
    const bus = new InProcessAlarmBus();
    const got: ReceivedAlarm[] = [];
    let subscribed = 0;
    bus.subscribe({ alarm: (m) => got.push(m), subscribed: () => subscribed++ });
    const sent = [alarm('a'), alarm('b', 'globex'), alarm('c')];
    for (const m of sent) await bus.publish(m);
    await Promise.resolve();
    expect(subscribed).toBe(1);
    expect(got.map((m) => [m.topicTenantId, (m.payload as AlarmMessage).id])).toEqual([
      ['acme', 'a'],
      ['globex', 'b'],
      ['acme', 'c'],
    ]);
    expect(got[0].payload).toEqual(sent[0]);
    expect(got[0].payload).not.toBe(sent[0]);
    expect(got[0].raw).toBe(JSON.stringify(sent[0]));
  });

  it('never delivers inside publish, survives a throwing listener, and refuses after close', async () => {
    const bus = new InProcessAlarmBus({ logger: { info: () => undefined, warn: () => undefined, error: () => undefined } });
    const got: string[] = [];
    bus.subscribe({ alarm: () => { throw new Error('boom'); } });
    const off = bus.subscribe({ alarm: (m) => got.push((m.payload as AlarmMessage).id) });
    const p = bus.publish(alarm('a'));
    expect(got).toEqual([]);
    await p;
    await Promise.resolve();
    expect(got).toEqual(['a']);
    off();
    await bus.publish(alarm('b'));
    await Promise.resolve();
    expect(got).toEqual(['a']);
    await bus.close();
    expect(bus.connected).toBe(false);
    await expect(bus.publish(alarm('c'))).rejects.toThrow(/closed/);
  });
});

describe('RecentIds', () => {
  it('drops repeats and forgets the oldest beyond its capacity', () => {
    const ids = new RecentIds(2);
    expect(ids.add('a')).toBe(true);
    expect(ids.add('a')).toBe(false);
    expect(ids.add('b')).toBe(true);
    expect(ids.add('c')).toBe(true);
    expect(ids.has('a')).toBe(false);
    expect(ids.has('b') && ids.has('c')).toBe(true);
    expect(ids.size).toBe(2);
  });
});
