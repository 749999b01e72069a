import { beforeEach, describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../../../test/support/databases';
import { insertTask, pendingRunRow, seedTenant } from '../../../../../test/cluster/support/seed';
import { inTransaction } from '../../nest';
import { RunEntity } from '../../entities/run.entity';
import { findCancelledSentRuns } from '../../engine-queries/runs/find-cancelled-sent-runs';
import { instantsGivenBack, withdrawPreparedFires, WITHDRAWN_BY } from './withdraw-prepared-fires';

const T = 1_790_000_000_000;

describe.each(TEST_DATABASES)('withdrawing prepared fires (withdrawPreparedFires) on %s', (kind) => {
  const db = useTestDatabase(kind);
  let taskId: number;
  let executorId: number;
  let seq = 0;

  beforeEach(async () => {
    await db.clear();
    const tenant = await seedTenant(db.dataSource, { id: 'acme', engineGroup: 'default' });
    taskId = await insertTask(db.dataSource, tenant, { name: 'rate', trigger: { kind: 'FIXED_RATE', intervalMs: 1_000 } });
    await db.dataSource.query("INSERT INTO executors (tenant_id, app, url, capacity, state, registered_at, heartbeat_at) VALUES ('acme', 'app', 'http://executor-1', 1, 'UP', ?, ?)", [T, T]);
    executorId = Number((await db.dataSource.query('SELECT id FROM executors'))[0].id);
  });

  const fire = async (state: RunEntity['state'], more: Partial<RunEntity> = {}) => {
    const at = T + 1_000 * ++seq;
    const row = { ...pendingRunRow({ id: 'acme', engineGroup: 'default' }, taskId, at, `s:${at}`, { now: T }), state, ...more };
    return { id: Number((await db.dataSource.getRepository(RunEntity).insert(row)).identifiers[0].id), at };
  };
  const read = async (id: number) => {
    const r = await db.dataSource.getRepository(RunEntity).findOneBy({ id });
    return r && { state: r.state, withdrawal: r.withdrawal, fireKey: r.fireKey };
  };

  it('a fire its dead engine had sent, or whose dispatch got no answer, is maybe sent: cancelled UNSETTLED under its fire key, its instant kept, aborted at that executor', async () => {
    const planned = await fire('PENDING');
    const claimed = await fire('CLAIMED', { claimedBy: 'e1' });
    const deferred = await fire('RETRY_WAIT', { error: 'Dispatch deferred' });
    // Its engine died: the takeover gave it back to PENDING with its dispatch mark and executor (releaseRuns).
    const takenOver = await fire('PENDING', { dispatchedAt: T + 500, executorId });
    // Its dispatch got no answer (deferRunDispatch points it at that executor, no mark).
    const noAnswer = await fire('RETRY_WAIT', { executorId, error: 'Dispatch deferred: no answer' });
    const reclaimed = await fire('CLAIMED', { claimedBy: 'e2', dispatchedAt: T + 500, executorId });
    const sentAhead = await fire('ACCEPTED', { claimedBy: 'e1', dispatchedAt: T + 500, acceptedAt: T + 500, executorId });
    const retried = await fire('RETRY_WAIT', { attempt: 2 });

    const withdrawn = await inTransaction(db.dataSource, (em) => withdrawPreparedFires(em, { tenantId: 'acme', taskIds: [taskId], after: T, now: T + 100, error: WITHDRAWN_BY.edit }));
    expect(withdrawn.map((f) => [f.runId, f.mayBeSent])).toEqual([
      [planned.id, false], [claimed.id, false], [deferred.id, false], [takenOver.id, true], [noAnswer.id, true], [reclaimed.id, true], [sentAhead.id, true],
    ]);
    expect(instantsGivenBack(withdrawn)).toEqual([planned.at, claimed.at, deferred.at]);

    expect(await read(planned.id)).toBeNull();
    for (const never of [claimed, deferred]) expect(await read(never.id)).toEqual({ state: 'CANCELLED', withdrawal: null, fireKey: `w:${never.id}` });
    for (const maybe of [takenOver, noAnswer, reclaimed, sentAhead]) expect(await read(maybe.id)).toEqual({ state: 'CANCELLED', withdrawal: 'UNSETTLED', fireKey: `s:${maybe.at}` });
    // A fire past its first attempt had its instant acted on: it runs as prepared.
    expect(await read(retried.id)).toEqual({ state: 'RETRY_WAIT', withdrawal: null, fireKey: `s:${retried.at}` });

    // The engines' abort finds each maybe-sent one's executor (and none for the ones never sent).
    const aborts = await findCancelledSentRuns(db.dataSource.manager, { tenantId: 'acme', runIds: withdrawn.map((f) => f.runId) });
    expect(aborts.map((a) => [a.runId, a.executorUrl, a.unsettled]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual(
      [takenOver, noAnswer, reclaimed, sentAhead].map((f) => [f.id, 'http://executor-1', true]),
    );
  });
});
