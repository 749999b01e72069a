import { beforeEach, describe, expect, it } from 'vitest';
import { inTransaction, lockSubmittedTasks } from '@baton/persistence';
import { useTestDatabase } from '../../../../test/support/databases';
import { carriedRunRow, claimSide, insertRun, insertTask, T0, testConfig } from '../testing/engine-test-kit';

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

  it('reads a run its wake-up did not carry (or carried for another tenant)', async () => {
    const { runId, side, named } = await setUp();
    side.woken.put('other', [{ ...carriedRunRow(runId, 'other'), params: '{"carried":true}' }]);
    const { ready } = await side.claims.readNamed(db.dataSource.manager, named, { now: T0 });
    expect(ready.map((r) => r.runId)).toEqual([runId]);
    expect(ready[0].params).not.toEqual({ carried: true });
  });
});
