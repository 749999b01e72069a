/**
 * Broadcast and sharding through the console API (issue 14 item 2): a task's fanOut is saved,
 * shown and validated; a fan-out run's shards are listed by ?parentRunId=; cancelling the run
 * cancels its live shards; a shard alone cannot be cancelled. The engines' side is
 * apps/engine/src/runs/fan-out.spec.ts and test/cluster/fan-out.e2e-spec.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunCancels } from '@baton/messaging';
import { RunEntity } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { cronTask, insertRun, seedTenant, startConsole, type ConsoleTestApp, type SeededTenant } from './console-test-kit';

describe.each(TEST_DATABASES)('fan-out through the console API on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let acme: SeededTenant;
  let other: SeededTenant;
  /** What the console told the engines of cancelled runs (RunWakeups.cancelled). */
  const cancelNotices: RunCancels[] = [];

  beforeAll(async () => {
    t = await startConsole(db.dataSource, undefined, { wakeups: { wake: () => undefined, cancelled: (c) => cancelNotices.push(c) } });
    acme = await seedTenant(t, db.dataSource, 'acme');
    other = await seedTenant(t, db.dataSource, 'globex');
  });
  afterAll(() => t?.close());

  it('saves a broadcast or sharded task, defaults the rest, and shows it back', async () => {
    const single = await t.http().post('/api/tasks').set(acme.admin).send(cronTask('single'));
    expect(single.status).toBe(201);
    expect(single.body.fanOut).toEqual({ mode: 'SINGLE', shards: null, failWhen: 'ANY_SHARD_FAILS' });
    const sharded = await t.http().post('/api/tasks').set(acme.admin).send(cronTask('reindex', { fanOut: { mode: 'SHARDED', shards: 8 } }));
    expect(sharded.status).toBe(201);
    expect(sharded.body.fanOut).toEqual({ mode: 'SHARDED', shards: 8, failWhen: 'ANY_SHARD_FAILS' });
    const patched = await t.http().patch(`/api/tasks/${sharded.body.id}`).set(acme.admin).send({ fanOut: { mode: 'BROADCAST', failWhen: 'ALL_SHARDS_FAIL' }, version: sharded.body.version });
    expect(patched.status).toBe(200);
    expect(patched.body.fanOut).toEqual({ mode: 'BROADCAST', shards: null, failWhen: 'ALL_SHARDS_FAIL' });
    expect((await t.http().get(`/api/tasks/${sharded.body.id}`).set(acme.viewer)).body.fanOut).toEqual(patched.body.fanOut);
  });

  it('refuses a bad fanOut naming the field and the reason, and stores nothing', async () => {
    const before = (await t.http().get('/api/tasks').set(acme.admin)).body;
    const bad = await t.http().post('/api/tasks').set(acme.admin).send(cronTask('bad', { fanOut: { mode: 'SHARDED', shards: 0, failWhen: 'SOMETIMES' } }));
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([
      { field: 'fanOut.failWhen', reason: 'must be one of ANY_SHARD_FAILS, ALL_SHARDS_FAIL' },
      { field: 'fanOut.shards', reason: 'must be at least 1' },
    ]);
    const broadcastWithShards = await t.http().post('/api/tasks').set(acme.admin).send(cronTask('bad', { fanOut: { mode: 'BROADCAST', shards: 3 } }));
    expect(broadcastWithShards.body.errors).toEqual([{ field: 'fanOut.shards', reason: 'is only for mode SHARDED (a broadcast has one shard per UP executor)' }]);
    expect((await t.http().get('/api/tasks').set(acme.admin)).body).toEqual(before);
  });

  it("lists a fan-out run's shards, cancels them with it, refuses to cancel a shard alone; another tenant sees none of it", async () => {
    const task = (await t.http().post('/api/tasks').set(acme.admin).send(cronTask('flush', { fanOut: { mode: 'BROADCAST' } }))).body;
    const parent = await insertRun(db.dataSource, 'acme', task.id, { state: 'ACCEPTED', shardTotal: 3 });
    const shard = (i: number, state: RunEntity['state']) =>
      insertRun(db.dataSource, 'acme', task.id, { state, cause: 'SHARD', parentRunId: parent.id, shardIndex: i, shardTotal: 3, fireKey: `sh:${parent.id}:${i}` });
    const shards = [await shard(0, 'SUCCEEDED'), await shard(1, 'ACCEPTED'), await shard(2, 'PENDING')];

    const listed = await t.http().get(`/api/runs?parentRunId=${parent.id}`).set(acme.viewer);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((r: { id: number; shardIndex: number; shardTotal: number; cause: string }) => [r.id, r.cause, r.shardIndex, r.shardTotal]).sort()).toEqual(
      shards.map((s, i) => [s.id, 'SHARD', i, 3]).sort(),
    );
    expect((await t.http().get(`/api/runs?parentRunId=${parent.id}`).set(other.admin)).body.items).toEqual([]);
    expect((await t.http().post(`/api/runs/${parent.id}/cancel`).set(other.admin)).status).toBe(404);

    const alone = await t.http().post(`/api/runs/${shards[1].id}/cancel`).set(acme.admin);
    expect(alone.status).toBe(409);
    expect(alone.body.message).toBe(`Run ${shards[1].id} is shard 1 of run ${parent.id}: cancel run ${parent.id}, which cancels its shards`);
    expect(alone.body.errors).toEqual([{ field: 'cause', reason: `is SHARD: a shard is cancelled with its fan-out run ${parent.id}` }]);

    const cancelled = await t.http().post(`/api/runs/${parent.id}/cancel`).set(acme.admin);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.state).toBe('CANCELLED');
    const states = await Promise.all(shards.map(async (s) => (await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id: s.id })).state));
    expect(states).toEqual(['SUCCEEDED', 'CANCELLED', 'CANCELLED']);
  });

  it('has the engines abort the shards a cancelled fan-out run had sent, by the run’s route and by bulk cancel', async () => {
    const task = (await t.http().post('/api/tasks').set(acme.admin).send(cronTask('reindex-all', { fanOut: { mode: 'SHARDED', shards: 3 } }))).body;
    const fanOut = async () => {
      const parent = await insertRun(db.dataSource, 'acme', task.id, { state: 'ACCEPTED', shardTotal: 3 });
      const shard = (i: number, state: RunEntity['state']) =>
        insertRun(db.dataSource, 'acme', task.id, { state, cause: 'SHARD', parentRunId: parent.id, shardIndex: i, shardTotal: 3, fireKey: `sh:${parent.id}:${i}`, dispatchedAt: state === 'PENDING' ? null : parent.scheduledAt });
      return { parent, shards: [await shard(0, 'ACCEPTED'), await shard(1, 'DISPATCHED'), await shard(2, 'PENDING')] };
    };
    // The fan-out run itself was never at an executor; its shards that were sent are.
    const sentIds = (f: Awaited<ReturnType<typeof fanOut>>) => [f.parent.id, f.shards[0].id, f.shards[1].id].sort((a, b) => a - b);

    const one = await fanOut();
    cancelNotices.splice(0);
    expect((await t.http().post(`/api/runs/${one.parent.id}/cancel`).set(acme.admin)).status).toBe(200);
    expect(cancelNotices.map((n) => ({ ...n, runIds: [...n.runIds].sort((a, b) => a - b) }))).toEqual([{ tenantId: 'acme', engineGroup: 'default', runIds: sentIds(one) }]);

    const two = await fanOut();
    cancelNotices.splice(0);
    const bulk = await t.http().post('/api/runs/bulk-cancel').set(acme.admin).send({ ids: [two.parent.id] });
    expect(bulk.status, bulk.text).toBe(200);
    expect(cancelNotices.flatMap((n) => n.runIds).sort((a, b) => a - b)).toEqual(sentIds(two));
  });
});
