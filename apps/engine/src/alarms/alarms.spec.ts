import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '@baton/domain';
import { AlarmEntity, inTransaction, markAlarmsPublished } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { eventually, seedTask, seedTenant } from '../testing/dispatch-side-kit';
import type { Alarms, RaiseAlarm } from './alarms';
import { OutboxSignal } from './outbox-signal';
import { newAlarms } from './testing/new-alarms';

const T = 1_767_225_600_000;

describe.each(TEST_DATABASES)('alarms (outbox rows, per-task settings) on %s', (kind) => {
  const db = useTestDatabase(kind);
  let alarms: Alarms;
  beforeEach(async () => {
    await db.clear();
    await seedTenant(db.dataSource);
    alarms = newAlarms(db.dataSource);
  });
  /** Raises the alarm in a transaction of its own; a repeat's count is written once it commits, and waited for. */
  const raise = async (alarm: Omit<RaiseAlarm, 'tenantId'> & { tenantId?: string }) => {
    const outcome = await inTransaction(db.dataSource, (em) => alarms.raiseAlarm(em, { tenantId: 'acme', ...alarm }));
    await alarms.countsWritten();
    return outcome;
  };
  const rows = () => db.dataSource.getRepository(AlarmEntity).find({ order: { id: 'ASC' } });

  it('collapses repeats within the silence window into one alarm with a count — no flood', async () => {
    const task = await seedTask(db.dataSource, { name: 'flaky', alarmSilenceMs: 60_000 });
    const timeout = (now: number, runId: number) => raise({ type: 'TIMEOUT', taskId: task.id, runId, message: `run ${runId} timed out`, now });
    expect(await timeout(T, 1)).toBe('WRITTEN');
    for (let i = 2; i <= 20; i++) expect(await timeout(T + i * 1000, i)).toBe('COLLAPSED');
    let all = await rows();
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ type: 'TIMEOUT', runId: 1, count: 20, message: 'run 1 timed out', publishedAt: null });

    // The window is anchored at the first alarm: past it, a new alarm.
    expect(await timeout(T + 60_001, 99)).toBe('WRITTEN');
    all = await rows();
    expect(all.map((a) => [a.runId, a.count])).toEqual([
      [1, 20],
      [99, 1],
    ]);
  });

  it('puts a published alarm back into the outbox when a repeat is counted into it: its new count is published again', async () => {
    const task = await seedTask(db.dataSource, { name: 'flaky', alarmSilenceMs: 60_000 });
    expect(await raise({ type: 'FAILED', taskId: task.id, runId: 1, message: 'boom', now: T })).toBe('WRITTEN');
    await db.dataSource.query(`UPDATE alarms SET published_at = ?`, [T + 5]); // the relay published it
    expect(await raise({ type: 'FAILED', taskId: task.id, runId: 2, message: 'boom', now: T + 1_000 })).toBe('COLLAPSED');
    const [alarm] = await rows();
    expect(alarm).toMatchObject({ runId: 1, count: 2, publishedAt: null });
  });

  it('a repeat that refreshes gives the open alarm its message and data, published again with its count; an acknowledged one is news again', async () => {
    const skew = (now: number, message: string, state: string) => raise({ type: 'CLOCK_SKEW', message, data: { state }, silenceMs: 600_000, refresh: true, now });
    expect(await skew(T, '1197 ms ahead', 'SKEWED')).toBe('WRITTEN');
    await db.dataSource.query(`UPDATE alarms SET published_at = ?`, [T + 5]); // the relay published it
    expect(await skew(T + 60_000, '3004 ms behind: claims no runs', 'STOPPED')).toBe('COLLAPSED');
    expect(await rows()).toEqual([expect.objectContaining({ count: 2, message: '3004 ms behind: claims no runs', data: { state: 'STOPPED' }, publishedAt: null })]);
    await db.dataSource.query(`UPDATE alarms SET acked_at = ?`, [T + 61_000]);
    expect(await skew(T + 62_000, '1000 ms behind', 'SKEWED')).toBe('WRITTEN');
    expect((await rows()).map((a) => [a.count, a.message])).toEqual([
      [2, '3004 ms behind: claims no runs'],
      [1, '1000 ms behind'],
    ]);
  });

  it('counts every repeat of transactions that commit together, and none of one that rolls back', async () => {
    const task = await seedTask(db.dataSource, { name: 'storm', alarmSilenceMs: 60_000 });
    const failed = (now: number) => ({ tenantId: 'acme', type: 'FAILED' as const, taskId: task.id, message: 'boom', now });
    expect(await raise(failed(T))).toBe('WRITTEN');
    // 40 failing runs' transactions at once (on MariaDB, 40 connections: the pool's), one rolled back after its repeat was found.
    const outcomes = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        inTransaction(db.dataSource, async (em) => {
          const outcome = await alarms.raiseAlarm(em, failed(T + 1 + i));
          if (i === 7) throw new Error('rolled back');
          return outcome;
        }),
      ),
    );
    await alarms.countsWritten();
    expect(outcomes.filter((o) => o.status === 'fulfilled' && o.value === 'COLLAPSED')).toHaveLength(39);
    expect((await rows()).map((a) => a.count)).toEqual([40]);
  });

  it('keeps the repeats of an alarm acknowledged before they were written in its count, without publishing it again', async () => {
    const task = await seedTask(db.dataSource, { name: 'acked', alarmSilenceMs: 60_000 });
    expect(await raise({ type: 'FAILED', taskId: task.id, message: 'boom', now: T })).toBe('WRITTEN');
    await db.dataSource.query('UPDATE alarms SET published_at = ?', [T + 5]);
    const outcome = await inTransaction(db.dataSource, async (em) => {
      const counted = await alarms.raiseAlarm(em, { tenantId: 'acme', type: 'FAILED', taskId: task.id, message: 'boom', now: T + 10 });
      await em.query('UPDATE alarms SET acked_at = ?, acked_by = ?', [T + 11, 'ann']); // acknowledged before the repeat's count is written
      return counted;
    });
    await alarms.countsWritten();
    expect(outcome).toBe('COLLAPSED');
    expect(await rows()).toMatchObject([{ count: 2, ackedAt: T + 11, publishedAt: T + 5 }]);
  });

  /** What the relay does once the broker has the alarm: marked published at `at` with the count it carried. */
  const relayed = (at: number) => inTransaction(db.dataSource, async (em) => markAlarmsPublished(em, (await rows()).filter((a) => a.publishedAt === null), at));

  it('puts a counted alarm back into the outbox at most once a second after its last publish; the repeats in between are counted at once and published with the next', async () => {
    const clock = new ManualClock(T);
    const counted = newAlarms(db.dataSource, new OutboxSignal(), clock);
    const task = await seedTask(db.dataSource, { name: 'storm', alarmSilenceMs: 60_000 });
    const repeat = (now: number) => inTransaction(db.dataSource, (em) => counted.raiseAlarm(em, { tenantId: 'acme', type: 'FAILED', taskId: task.id, message: 'boom', now }));
    const alarm = async () => (await rows())[0];
    expect(await repeat(T)).toBe('WRITTEN');
    await relayed(T + 5);
    clock.set(T + 1_010);
    expect(await repeat(T + 1_010)).toBe('COLLAPSED');
    await eventually(async () => ((await alarm()).count === 2 ? true : undefined), 'the first repeat counted');
    expect((await alarm()).publishedAt).toBeNull(); // a second after the publish: back in the outbox at once
    await relayed(T + 1_020);
    clock.set(T + 1_500);
    expect(await repeat(T + 1_500)).toBe('COLLAPSED');
    await eventually(async () => ((await alarm()).count === 3 ? true : undefined), 'the second repeat counted');
    expect((await alarm()).publishedAt).toBe(T + 1_020); // counted, not published again within the second
    clock.set(T + 2_020); // the second is over: the timer puts it back
    await eventually(async () => ((await alarm()).publishedAt === null ? true : undefined), 'the withheld count back in the outbox once its second is over');
    expect(await alarm()).toMatchObject({ count: 3, publishedCount: 2 });
  });

  it('two engines counting into one alarm put it back once a second between them, not once each: a publish by either carries the other\'s repeats', async () => {
    const clock = new ManualClock(T);
    const [a, b] = [newAlarms(db.dataSource, new OutboxSignal(), clock), newAlarms(db.dataSource, new OutboxSignal(), clock)];
    const task = await seedTask(db.dataSource, { name: 'storm', alarmSilenceMs: 60_000 });
    const repeat = (engine: Alarms, now: number) => inTransaction(db.dataSource, (em) => engine.raiseAlarm(em, { tenantId: 'acme', type: 'FAILED', taskId: task.id, message: 'boom', now }));
    const alarm = async () => (await rows())[0];
    expect(await repeat(a, T)).toBe('WRITTEN');
    await relayed(T + 5);
    clock.set(T + 1_100);
    await repeat(a, T + 1_100);
    await a.countsWritten();
    expect(await alarm()).toMatchObject({ count: 2, publishedAt: null }); // A's repeat: published again
    await relayed(T + 1_105);
    clock.set(T + 1_200);
    await repeat(b, T + 1_200);
    await eventually(async () => ((await alarm()).count === 3 ? true : undefined), "B's repeat counted");
    expect(await alarm()).toMatchObject({ publishedAt: T + 1_105, publishedCount: 2 }); // within the second of A's publish: B waits
    clock.set(T + 1_300);
    await repeat(a, T + 1_300); // A again, then the relay, before B's second is over: that publish carries B's repeat too
    await eventually(async () => ((await alarm()).count === 4 ? true : undefined), "A's second repeat counted");
    expect((await alarm()).publishedAt).toBe(T + 1_105);
    clock.set(T + 2_105);
    await a.countsWritten(); // A's withheld count goes back (at its timer; here at once)
    await relayed(T + 2_106);
    expect(await alarm()).toMatchObject({ count: 4, publishedCount: 4 });
    await b.countsWritten(); // B's timer finds its repeat published already: nothing goes out again
    expect(await alarm()).toMatchObject({ publishedAt: T + 2_106, publishedCount: 4 });
  });

  it('repeats raised in one transaction (a watchdog tick’s late runs of a task) count into its alarm without reading it again', async () => {
    const task = await seedTask(db.dataSource, { name: 'late', alarmSilenceMs: 60_000 });
    const other = await seedTask(db.dataSource, { name: 'other', alarmSilenceMs: 60_000 });
    const late = (taskId: number, runId: number) => ({ tenantId: 'acme', type: 'START_LATE' as const, taskId, runId, message: `run ${runId} late`, now: T });
    let reads = 0;
    const outcomes = await inTransaction(db.dataSource, async (em) => {
      const runner = em.queryRunner!;
      const query = runner.query.bind(runner);
      runner.query = ((sql: string, ...rest: unknown[]) => {
        if (/^\s*SELECT id FROM alarms/i.test(sql)) reads++;
        return (query as (...args: unknown[]) => Promise<unknown>)(sql, ...rest);
      }) as typeof runner.query;
      const out = [];
      for (let runId = 1; runId <= 5; runId++) out.push(await alarms.raiseAlarm(em, late(task.id, runId)));
      out.push(await alarms.raiseAlarm(em, late(other.id, 6)), await alarms.raiseAlarm(em, late(other.id, 7)));
      runner.query = query; // SQLite's one runner serves the writes of the counts after the commit too: they are not this transaction's reads
      return out;
    });
    await alarms.countsWritten();
    expect(outcomes).toEqual(['WRITTEN', 'COLLAPSED', 'COLLAPSED', 'COLLAPSED', 'COLLAPSED', 'WRITTEN', 'COLLAPSED']);
    expect(reads).toBe(2); // one a task: its first alarm's look for one to count into
    expect((await rows()).map((a) => [a.taskId, a.runId, a.count])).toEqual([
      [task.id, 1, 5],
      [other.id, 6, 2],
    ]);
    // The next transaction reads again: an alarm acknowledged meanwhile is not counted into.
    await db.dataSource.getRepository(AlarmEntity).update({ taskId: task.id }, { ackedAt: T + 1, ackedBy: 'ann' });
    expect(await raise(late(task.id, 8))).toBe('WRITTEN');
  });

  it('does not collapse a different type or severity, an acknowledged alarm, or other tasks', async () => {
    const task = await seedTask(db.dataSource, { name: 'a', alarmSilenceMs: 60_000 });
    const other = await seedTask(db.dataSource, { name: 'b', alarmSilenceMs: 60_000 });
    await raise({ type: 'TIMEOUT', severity: 'WARNING', taskId: task.id, message: 'x', now: T });
    expect(await raise({ type: 'TIMEOUT', severity: 'CRITICAL', taskId: task.id, message: 'x', now: T + 1 })).toBe('WRITTEN');
    expect(await raise({ type: 'FAILED', taskId: task.id, message: 'x', now: T + 2 })).toBe('WRITTEN');
    expect(await raise({ type: 'FAILED', taskId: other.id, message: 'x', now: T + 3 })).toBe('WRITTEN');
    await db.dataSource.getRepository(AlarmEntity).update({ type: 'FAILED', taskId: task.id }, { ackedAt: T + 4, ackedBy: 'ann' });
    expect(await raise({ type: 'FAILED', taskId: task.id, message: 'x', now: T + 5 })).toBe('WRITTEN');
    expect(await raise({ type: 'FAILED', taskId: task.id, message: 'x', now: T + 6 })).toBe('COLLAPSED');
    expect((await rows()).map((a) => a.count)).toEqual([1, 1, 1, 1, 2]);
  });

  it('business alarms are the same alarm only with the same message; silence 0 never collapses; no task never collapses', async () => {
    const task = await seedTask(db.dataSource, { name: 'biz', alarmSilenceMs: 60_000 });
    const quiet = await seedTask(db.dataSource, { name: 'loud', alarmSilenceMs: 0 });
    await raise({ type: 'BUSINESS', severity: 'WARNING', taskId: task.id, message: 'disk 91%', now: T });
    expect(await raise({ type: 'BUSINESS', severity: 'WARNING', taskId: task.id, message: 'disk 91%', now: T + 1 })).toBe('COLLAPSED');
    expect(await raise({ type: 'BUSINESS', severity: 'WARNING', taskId: task.id, message: 'ledger off', now: T + 2 })).toBe('WRITTEN');
    expect(await raise({ type: 'FAILED', taskId: quiet.id, message: 'x', now: T })).toBe('WRITTEN');
    expect(await raise({ type: 'FAILED', taskId: quiet.id, message: 'x', now: T + 1 })).toBe('WRITTEN');
    expect(await raise({ type: 'EXECUTOR_DOWN', message: 'x', now: T })).toBe('WRITTEN');
    expect(await raise({ type: 'EXECUTOR_DOWN', message: 'x', now: T + 1 })).toBe('WRITTEN');
    expect((await rows()).map((a) => a.count)).toEqual([2, 1, 1, 1, 1, 1]);
  });

  it('takes the task’s settings from a caller that carries them (a claimed run, a callback’s attempt row) instead of reading the task', async () => {
    const task = await seedTask(db.dataSource, { name: 'carried', alarmTypes: ['FAILED'], alarmSilenceMs: 0 });
    // The row says: FAILED only, never collapsed; the caller's settings (read with its claim) say otherwise, and win.
    const carried = { taskId: task.id, message: 'x', alarmTypes: ['RETRYING' as const], silenceMs: 60_000 };
    expect(await raise({ ...carried, type: 'RETRYING', now: T })).toBe('WRITTEN');
    expect(await raise({ ...carried, type: 'RETRYING', now: T + 1 })).toBe('COLLAPSED');
    expect(await raise({ ...carried, type: 'FAILED', now: T + 2 })).toBe('FILTERED');
    // Without both, the task is read.
    expect(await raise({ taskId: task.id, message: 'x', type: 'RETRYING', silenceMs: 60_000, now: T + 3 })).toBe('FILTERED');
    expect(await raise({ taskId: task.id, message: 'x', type: 'FAILED', alarmTypes: null, now: T + 4 })).toBe('WRITTEN');
    expect(await raise({ taskId: task.id, message: 'x', type: 'FAILED', alarmTypes: null, now: T + 5 })).toBe('WRITTEN');
    expect((await rows()).map((a) => [a.type, a.count])).toEqual([
      ['RETRYING', 2],
      ['FAILED', 1],
      ['FAILED', 1],
    ]);
  });

  it('honours the task’s alarm types', async () => {
    const task = await seedTask(db.dataSource, { name: 'picky', alarmTypes: ['FAILED'] });
    expect(await raise({ type: 'RETRYING', taskId: task.id, message: 'x', now: T })).toBe('FILTERED');
    expect(await raise({ type: 'FAILED', taskId: task.id, message: 'x', now: T })).toBe('WRITTEN');
    expect(await rows()).toHaveLength(1);
  });

  it('gives every alarm a stable uid; an executor’s id is kept and written once, into the outbox', async () => {
    const task = await seedTask(db.dataSource, { name: 'biz', alarmSilenceMs: 60_000 });
    await raise({ type: 'EXECUTOR_UP', message: 'up', now: T });
    const uid = '5f0c2a34-0d7e-4a57-9c1b-2b3c4d5e6f70';
    const business = { type: 'BUSINESS' as const, severity: 'CRITICAL' as const, taskId: task.id, message: 'ledger off', uid, now: T + 1 };
    expect(await raise(business)).toBe('WRITTEN');
    expect(await raise({ ...business, now: T + 2 })).toBe('DUPLICATE'); // the callback again
    // A malformed id is replaced.
    expect(await raise({ type: 'EXECUTOR_UP', message: 'up', uid: 'not an id!', now: T + 3 })).toBe('WRITTEN');
    const all = await rows();
    expect(all).toHaveLength(3);
    expect(all[0].uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(all[1]).toMatchObject({ uid, publishedAt: null, severity: 'CRITICAL', count: 1 });
    expect(all[2].uid).not.toBe('not an id!');
    expect(new Set(all.map((a) => a.uid)).size).toBe(3);
  });

  it('an executor’s alarm carried again is not counted as a repeat either', async () => {
    const task = await seedTask(db.dataSource, { name: 'biz', alarmSilenceMs: 60_000 });
    const alarm = { type: 'BUSINESS' as const, severity: 'WARNING' as const, taskId: task.id, message: 'stock low', uid: 'a0b1c2d3-0000-4000-8000-000000000001', now: T };
    expect(await raise(alarm)).toBe('WRITTEN');
    expect(await raise({ ...alarm, now: T + 10 })).toBe('DUPLICATE');
    expect(await raise({ ...alarm, uid: 'a0b1c2d3-0000-4000-8000-000000000002', now: T + 20 })).toBe('COLLAPSED'); // a real repeat
    expect((await rows()).map((a) => a.count)).toEqual([2]);
  });
});
