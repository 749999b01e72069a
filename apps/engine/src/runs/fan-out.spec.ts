import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import type { FanOut } from '@baton/domain';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { alarms, claimedRunOf, readRun, runInState, runsOfTask, seedExecutor, seedRun, seedTask, seedTenant, startDispatchSide, TENANT, type DispatchSideApp, type SeededTask } from '../testing/dispatch-side-kit';
import { DueQueue } from '../dispatch/due-queue';
import { Watchdog } from '../watchdog/watchdog';
import { followUpTransaction } from '../follow-ups/follow-ups';
import { RunOutcomes, type AttemptRef } from './run-outcomes';

const retry = { maxAttempts: 1, backoffBaseMs: 1000, backoffMaxMs: 1000, jitter: 0 };

/** A task's fan-out setting, as the console stores it. */
async function setFanOut(ds: DataSource, task: SeededTask, fanOut: FanOut): Promise<void> {
  await ds.query(`UPDATE tasks SET fan_out_mode = ?, fan_out_shards = ?, fan_out_fail_when = ? WHERE id = ?`, [fanOut.mode, fanOut.shards, fanOut.failWhen, task.id]);
}

/** A fan-out run already started (ACCEPTED) with `n` shards in `state`. */
async function startedFanOut(ds: DataSource, task: SeededTask, n: number, state: 'ACCEPTED' | 'PENDING' = 'ACCEPTED'): Promise<{ parent: number; shards: number[] }> {
  const parent = await seedRun(ds, task, { state: 'ACCEPTED', dispatchedAt: Date.now(), acceptedAt: Date.now() });
  await ds.query(`UPDATE runs SET shard_total = ? WHERE id = ?`, [n, parent]);
  const shards: number[] = [];
  for (let i = 0; i < n; i++) {
    const id = await seedRun(ds, task, { state, flowId: null, parentRunId: parent, fireKey: `sh:${parent}:${i}`, dispatchedAt: state === 'ACCEPTED' ? Date.now() : null });
    await ds.query(`UPDATE runs SET cause = 'SHARD', shard_index = ?, shard_total = ? WHERE id = ?`, [i, n, id]);
    shards.push(id);
  }
  return { parent, shards };
}

describe.each(TEST_DATABASES)('fan-out runs (broadcast, sharding) on the engine, on %s', (kind) => {
  const db = useTestDatabase(kind);
  let engine: DispatchSideApp;
  let outcomes: RunOutcomes;

  beforeAll(async () => {
    engine = await startDispatchSide(db.dataSource);
    outcomes = engine.get(RunOutcomes);
  });
  afterAll(async () => {
    await engine?.close();
  });
  beforeEach(async () => {
    await db.clear();
    await seedTenant(db.dataSource);
  });

  const shardRef = (task: SeededTask, runId: number, parent: number): AttemptRef => ({ runId, tenantId: TENANT, taskId: task.id, taskName: task.seed.name, attempt: 1, instant: 0, flowId: null, retry, shardOf: parent });
  const endShard = (task: SeededTask, runId: number, parent: number, end: 'SUCCEEDED' | 'FAILED') =>
    followUpTransaction(db.dataSource, (em) =>
      outcomes.endAttempt(em, shardRef(task, runId, parent), end === 'SUCCEEDED' ? { to: end, resultJson: `{"run":${runId}}` } : { to: end, error: `shard run ${runId} broke\n    at x (a.js:1:1)` }, {
        from: ['ACCEPTED'],
        now: Date.now(),
      }),
    );

  it('BROADCAST: the run writes one shard per UP executor, pinned to it, and runs (ACCEPTED, no executor, no deadline)', async () => {
    const task = await seedTask(db.dataSource, { name: 'flush' });
    await setFanOut(db.dataSource, task, { mode: 'BROADCAST', shards: null, failWhen: 'ANY_SHARD_FAILS' });
    const executors = [await seedExecutor(db.dataSource, { url: 'http://127.0.0.1:9/a' }), await seedExecutor(db.dataSource, { url: 'http://127.0.0.1:9/b' })];
    await engine.refreshRegistry();
    const runId = await seedRun(db.dataSource, task);
    engine.get(DueQueue).accept([claimedRunOf(task, runId, { fanOut: { mode: 'BROADCAST', shards: null, failWhen: 'ANY_SHARD_FAILS' } })]);
    const run = await runInState(db.dataSource, runId, 'ACCEPTED');
    expect(run).toMatchObject({ executorId: null, deadlineAt: null });
    const shards = (await runsOfTask(db.dataSource, task.id)).filter((r) => r.cause === 'SHARD');
    expect(shards.map((s) => [s.state, s.parentRunId, s.fireKey, s.executorId, s.flowId])).toEqual([
      ['PENDING', runId, `sh:${runId}:0`, executors[0], null],
      ['PENDING', runId, `sh:${runId}:1`, executors[1], null],
    ]);
    const placed = (await db.dataSource.query(`SELECT shard_index, shard_total, pinned_executor_id FROM runs WHERE parent_run_id = ? ORDER BY shard_index`, [runId])) as Array<Record<string, unknown>>;
    expect(placed.map((p) => [Number(p.shard_index), Number(p.shard_total), Number(p.pinned_executor_id)])).toEqual([
      [0, 2, executors[0]],
      [1, 2, executors[1]],
    ]);
  });

  it('SHARDED: N unpinned shards, each preferring the next executor round the list', async () => {
    const task = await seedTask(db.dataSource, { name: 'reindex' });
    const executors = [await seedExecutor(db.dataSource, { url: 'http://127.0.0.1:9/a' }), await seedExecutor(db.dataSource, { url: 'http://127.0.0.1:9/b' })];
    await engine.refreshRegistry();
    const runId = await seedRun(db.dataSource, task);
    engine.get(DueQueue).accept([claimedRunOf(task, runId, { fanOut: { mode: 'SHARDED', shards: 3, failWhen: 'ANY_SHARD_FAILS' } })]);
    await runInState(db.dataSource, runId, 'ACCEPTED');
    const placed = (await db.dataSource.query(`SELECT shard_index, shard_total, executor_id, pinned_executor_id FROM runs WHERE parent_run_id = ? ORDER BY shard_index`, [runId])) as Array<Record<string, unknown>>;
    expect(placed.map((p) => [Number(p.shard_index), Number(p.shard_total), Number(p.executor_id), p.pinned_executor_id])).toEqual([
      [0, 3, executors[0], null],
      [1, 3, executors[1], null],
      [2, 3, executors[0], null],
    ]);
    expect((await readRun(db.dataSource, runId)).executorId).toBeNull();
  });

  it("writes its shards in its tenant's engine group as the run's row has it, not as its engine read it at the claim (the tenant moved since)", async () => {
    const task = await seedTask(db.dataSource, { name: 'moved' });
    await seedExecutor(db.dataSource, { url: 'http://127.0.0.1:9/a' });
    await engine.refreshRegistry();
    const runId = await seedRun(db.dataSource, task);
    await db.dataSource.query(`UPDATE runs SET engine_group = 'gold' WHERE id = ?`, [runId]); // as moveTenantGroup does to a held run
    engine.get(DueQueue).accept([claimedRunOf(task, runId, { fanOut: { mode: 'SHARDED', shards: 2, failWhen: 'ANY_SHARD_FAILS' } })]);
    await runInState(db.dataSource, runId, 'ACCEPTED');
    const shards = (await db.dataSource.query(`SELECT engine_group FROM runs WHERE parent_run_id = ? ORDER BY shard_index`, [runId])) as Array<{ engine_group: string }>;
    expect(shards.map((s) => s.engine_group)).toEqual(['gold', 'gold']);
  });

  it('the last shard to end ends the run in its own transaction; shards that see others going leave it', async () => {
    const task = await seedTask(db.dataSource, { name: 'in-turn' });
    await setFanOut(db.dataSource, task, { mode: 'SHARDED', shards: 3, failWhen: 'ANY_SHARD_FAILS' });
    const { parent, shards } = await startedFanOut(db.dataSource, task, 3);
    await endShard(task, shards[0], parent, 'SUCCEEDED');
    await endShard(task, shards[2], parent, 'SUCCEEDED');
    expect((await readRun(db.dataSource, parent)).state).toBe('ACCEPTED');
    await endShard(task, shards[1], parent, 'SUCCEEDED');
    expect((await readRun(db.dataSource, parent)).state).toBe('SUCCEEDED'); // no wait: the last shard's transaction ended it
  });

  it('ends the run once however many shards end at the same moment (two that each see the other going leave it to the settler)', async () => {
    const task = await seedTask(db.dataSource, { name: 'together' });
    await setFanOut(db.dataSource, task, { mode: 'SHARDED', shards: 6, failWhen: 'ANY_SHARD_FAILS' });
    for (let round = 0; round < 5; round++) {
      const { parent, shards } = await startedFanOut(db.dataSource, task, 6);
      const ended = await Promise.all(shards.map((s) => endShard(task, s, parent, 'SUCCEEDED')));
      expect(ended.every((e) => e?.state === 'SUCCEEDED')).toBe(true);
      const run = await runInState(db.dataSource, parent, 'SUCCEEDED');
      expect((run.result as { shards: Array<{ index: number; result: unknown }> }).shards.map((s) => [s.index, s.result])).toEqual(shards.map((s, i) => [i, { run: s }]));
    }
    expect(await alarms(db.dataSource, 'FAILED')).toHaveLength(0);
  });

  it("the watchdog's sweep ends a run whose shards all ended without ending it (an engine died in between)", async () => {
    const task = await seedTask(db.dataSource, { name: 'orphan' });
    await setFanOut(db.dataSource, task, { mode: 'BROADCAST', shards: null, failWhen: 'ANY_SHARD_FAILS' });
    const { parent, shards } = await startedFanOut(db.dataSource, task, 2);
    // Ended behind the engine's back: no settle ran.
    await db.dataSource.query(`UPDATE runs SET state = 'SUCCEEDED', finished_at = ? WHERE id IN (?, ?)`, [Date.now(), shards[0], shards[1]]);
    const single = await seedRun(db.dataSource, task, { state: 'ACCEPTED', dispatchedAt: Date.now(), deadlineAt: Date.now() + 60_000 });
    expect((await engine.get(Watchdog).tick()).fanOuts).toBe(1);
    expect((await readRun(db.dataSource, parent)).state).toBe('SUCCEEDED');
    expect((await readRun(db.dataSource, single)).state).toBe('ACCEPTED'); // an executing single run is not a fan-out run
    expect((await engine.get(Watchdog).tick()).fanOuts).toBe(0);
  });

  it('ANY_SHARD_FAILS: the run fails naming the shard, with one FAILED alarm — its own, not the shard’s', async () => {
    const task = await seedTask(db.dataSource, { name: 'export' });
    await setFanOut(db.dataSource, task, { mode: 'SHARDED', shards: 3, failWhen: 'ANY_SHARD_FAILS' });
    const { parent, shards } = await startedFanOut(db.dataSource, task, 3);
    await endShard(task, shards[1], parent, 'FAILED');
    expect((await readRun(db.dataSource, parent)).state).toBe('ACCEPTED');
    await endShard(task, shards[0], parent, 'SUCCEEDED');
    await endShard(task, shards[2], parent, 'SUCCEEDED');
    const run = await readRun(db.dataSource, parent);
    expect(run.state).toBe('FAILED');
    expect(run.error).toBe(`1 of 3 shards did not succeed — shard 1 FAILED: shard run ${shards[1]} broke`);
    const failed = await alarms(db.dataSource, 'FAILED');
    expect(failed.map((a) => a.runId)).toEqual([parent]);
    expect(failed[0].message).toContain(`Task export: run ${parent} failed`);
  });

  it('ALL_SHARDS_FAIL: one shard succeeding is enough', async () => {
    const task = await seedTask(db.dataSource, { name: 'warm' });
    await setFanOut(db.dataSource, task, { mode: 'BROADCAST', shards: null, failWhen: 'ALL_SHARDS_FAIL' });
    const { parent, shards } = await startedFanOut(db.dataSource, task, 2);
    await endShard(task, shards[0], parent, 'FAILED');
    await endShard(task, shards[1], parent, 'SUCCEEDED');
    expect((await readRun(db.dataSource, parent)).state).toBe('SUCCEEDED');
    expect(await alarms(db.dataSource, 'FAILED')).toHaveLength(0);
  });

  it('a broadcast shard whose executor is not UP fails (no other executor may take it), and so ends its run', async () => {
    const task = await seedTask(db.dataSource, { name: 'rotate' });
    await setFanOut(db.dataSource, task, { mode: 'BROADCAST', shards: null, failWhen: 'ANY_SHARD_FAILS' });
    const other = await seedExecutor(db.dataSource, { url: 'http://127.0.0.1:9/other' });
    await engine.refreshRegistry();
    const { parent, shards } = await startedFanOut(db.dataSource, task, 1, 'PENDING');
    await db.dataSource.query(`UPDATE runs SET state = 'CLAIMED', claimed_by = ?, lease_until = ? WHERE id = ?`, [engine.config.nodeId, Date.now() + 15_000, shards[0]]);
    engine.get(DueQueue).accept([claimedRunOf(task, shards[0], { flowId: shards[0], shard: { parentRunId: parent, index: 0, total: 1, pinnedExecutorId: other + 1000 } })]);
    const shard = await runInState(db.dataSource, shards[0], 'FAILED');
    expect(shard.error).toBe(`executor ${other + 1000} of this broadcast is not UP`);
    expect(await runInState(db.dataSource, parent, 'FAILED')).toMatchObject({ error: expect.stringContaining('shard 0 FAILED: executor') });
  });

  it('REPLACE: a new fan-out run cancels the running one together with its shards', async () => {
    const task = await seedTask(db.dataSource, { name: 'replace', concurrencyPolicy: 'REPLACE' });
    await setFanOut(db.dataSource, task, { mode: 'SHARDED', shards: 2, failWhen: 'ANY_SHARD_FAILS' });
    await seedExecutor(db.dataSource, { url: 'http://127.0.0.1:9/a' });
    await engine.refreshRegistry();
    const old = await startedFanOut(db.dataSource, task, 2, 'PENDING');
    await db.dataSource.query(`UPDATE runs SET state = 'ACCEPTED', dispatched_at = ? WHERE id = ?`, [Date.now(), old.shards[0]]);
    const runId = await seedRun(db.dataSource, task);
    engine.get(DueQueue).accept([claimedRunOf(task, runId, { concurrencyPolicy: 'REPLACE', fanOut: { mode: 'SHARDED', shards: 2, failWhen: 'ANY_SHARD_FAILS' } })]);
    await runInState(db.dataSource, runId, 'ACCEPTED');
    for (const id of [old.parent, ...old.shards]) expect((await readRun(db.dataSource, id)).state).toBe('CANCELLED');
    const fresh = (await runsOfTask(db.dataSource, task.id)).filter((r) => r.parentRunId === runId);
    expect(fresh.map((r) => r.state)).toEqual(['PENDING', 'PENDING']);
  });
});
