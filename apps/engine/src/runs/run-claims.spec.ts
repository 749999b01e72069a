import { beforeEach, describe, expect, it } from 'vitest';
import { inTransaction, lockSubmittedTasks } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { carriedRunRow, claimSide, insertRun, insertTask, runsOf, T0, testConfig } from '../testing/engine-test-kit';

describe('RunClaims.readNamed', () => {
  const db = useTestDatabase('sqlite');
  beforeEach(() => db.clear());

  /** A MANUAL task's PENDING run due at T0 (params {n: …} in the database), and the engine's claim side. */
  const setUp = async () => {
    const taskId = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' } });
    const runId = await insertRun(db.dataSource, { taskId, cause: 'MANUAL' });
    const side = claimSide(db.dataSource, testConfig());
    const named = { ids: [runId], tenantId: 'acme', engineGroup: 'default' };
    return { taskId, runId, side, named };
  };

  it("dispatches a run its wake-up carried as carried, without reading it: the carried row's params, not the database's", async () => {
    const { taskId, runId, side, named } = await setUp();
    const task = (await inTransaction(db.dataSource, (em) => lockSubmittedTasks(em, 'acme', [taskId]))).get(taskId)!;
    side.woken.put('acme', [{ ...carriedRunRow(runId), task_id: taskId, params: '{"carried":true}', ...task.dispatch }]);
    const { ready, rest } = await side.claims.readNamed(db.dataSource.manager, named, { now: T0 });
    expect(ready.map((r) => [r.runId, r.params, r.unclaimed])).toEqual([[runId, { carried: true }, true]]);
    expect(rest).toEqual([]);
  });

  it('leaves every run to the claim by id when told not to take them unclaimed (they would wait behind a line of the tenant here)', async () => {
    const { runId, side, named } = await setUp();
    const { ready, rest, admitting } = await side.claims.readNamed(db.dataSource.manager, named, { now: T0, unclaimed: false });
    expect([ready, rest, admitting]).toEqual([[], [runId], false]);
  });

  it('reads a run its wake-up did not carry (or carried for another tenant)', async () => {
    const { runId, side, named } = await setUp();
    side.woken.put('other', [{ ...carriedRunRow(runId, 'other'), params: '{"carried":true}' }]);
    const { ready } = await side.claims.readNamed(db.dataSource.manager, named, { now: T0 });
    expect(ready.map((r) => r.runId)).toEqual([runId]);
    expect(ready[0].params).not.toEqual({ carried: true });
  });
});

describe.each(TEST_DATABASES)('RunClaims.claimNamed: keyed runs whose rows it has, claimed and admitted together (%s)', (kind) => {
  const db = useTestDatabase(kind);
  beforeEach(() => db.clear());
  const config = testConfig();

  /** A MANUAL task bounded by `customerId`, limit 1 (QUEUE), and `n` PENDING runs of customer c1 due at T0, read as a wake-up's claim reads them. */
  const setUp = async (n: number) => {
    const taskId = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' } });
    await db.dataSource.query('UPDATE tasks SET key_concurrency = ? WHERE id = ?', [JSON.stringify({ key: 'customerId', limit: 1, onLimit: 'QUEUE' }), taskId]);
    const ids: number[] = [];
    for (let i = 0; i < n; i++) ids.push(await insertRun(db.dataSource, { taskId, cause: 'MANUAL', params: { customerId: 'c1' } }));
    const side = claimSide(db.dataSource, config);
    const named = { ids, tenantId: 'acme', engineGroup: 'default' };
    const read = await side.claims.readNamed(db.dataSource.manager, named, { now: T0 });
    const claim = () => side.claims.claimNamed(db.dataSource.manager, { ...named, ids: read.rest, unadmitted: read.unadmitted }, { dueBefore: T0 + 10_000, now: T0 });
    return { taskId, ids, read, claim };
  };
  const states = async (taskId: number) => (await runsOf(db.dataSource, taskId)).map((r) => [r.state, r.runKey, r.claimedBy]);

  it('claims them and admits the first to its key, holding the other', async () => {
    const { taskId, ids, read, claim } = await setUp(2);
    expect(read.unadmitted.map(({ run }) => run.id)).toEqual(ids);
    expect((await claim()).map((r) => [r.runId, r.leaseUntil > T0])).toEqual([[ids[0], true]]);
    expect(await states(taskId)).toEqual([['CLAIMED', 'c1', config.nodeId], ['HELD', 'c1', null]]);
  });

  it('leaves a run another engine claimed meanwhile to it, and claims the rest by id', async () => {
    const { taskId, ids, claim } = await setUp(2);
    await db.dataSource.query("UPDATE runs SET state = 'CLAIMED', claimed_by = 'other-engine', lease_until = ? WHERE id = ?", [T0 + 15_000, ids[0]]);
    expect((await claim()).map((r) => r.runId)).toEqual([ids[1]]);
    // Nothing of the transaction that found the run taken is left: the second run was admitted once, by the claim by id.
    expect(await states(taskId)).toEqual([['CLAIMED', null, 'other-engine'], ['CLAIMED', 'c1', config.nodeId]]);
  });

  it('claims a run a rate key deferred since its row was read as it is now: due at its token, not as read', async () => {
    const { ids, claim } = await setUp(1);
    await db.dataSource.query('UPDATE runs SET due_at = ?, instant_at = ?, late_from_at = ? WHERE id = ?', [T0 + 5_000, T0, T0 + 5_000, ids[0]]);
    expect((await claim()).map((r) => [r.runId, r.dueAt, r.lateFrom])).toEqual([[ids[0], T0 + 5_000, T0 + 5_000]]);
  });

  it('does not admit twice a run its key admitted since its row was read (released, PENDING again)', async () => {
    const { taskId, ids, claim } = await setUp(1);
    await db.dataSource.query("UPDATE runs SET run_key = 'c1', key_scope = ? WHERE id = ?", [`t:${taskId}`, ids[0]]);
    expect((await claim()).map((r) => r.runId)).toEqual([ids[0]]);
    const [run] = await runsOf(db.dataSource, taskId);
    expect([run.state, run.runKey]).toEqual(['CLAIMED', 'c1']);
    expect(Number((await db.dataSource.query('SELECT COUNT(*) AS n FROM runs WHERE state = ?', ['HELD']))[0].n)).toBe(0);
  });
});
