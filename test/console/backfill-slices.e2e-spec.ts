/**
 * A large backfill is written a slice (BACKFILL_SLICE runs) a transaction (issue 20), so it is not
 * all-or-nothing: what the API promises instead — a cancel while the runs are written leaves
 * none of them PENDING and stops the rest, and the same request again finishes an interrupted
 * backfill without running a fire twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKFILL_SLICE } from '@baton/domain';
import { RunEntity, TaskEntity } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { cronTask, seedOperator, seedTenant, startConsole, T0, type ConsoleTestApp, type SeededTenant } from './console-test-kit';

const FIRES = 10_000;
const secondly = { trigger: { kind: 'CRON', expression: '* * * * * *', timeZone: 'UTC' } };

describe.each(TEST_DATABASES)('backfill written in slices on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let acme: SeededTenant;

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    acme = await seedTenant(t, db.dataSource, 'acme');
  });
  afterAll(() => t?.close());

  const backfillRuns = (taskId: number) => db.dataSource.getRepository(RunEntity).find({ where: { taskId, cause: 'BACKFILL' } });

  it('stops when cancelled while its runs are written: those written are cancelled, the rest are not written', async () => {
    const task = await t.http().post('/api/tasks').set(acme.adminKey).send(cronTask('every-second', secondly));
    const id = task.body.id as number;
    const writing = t.http().post(`/api/tasks/${id}/backfill`).set(acme.adminKey).send({ from: T0 - FIRES * 1000, to: T0, ratePerSec: 1000 }).then((res) => res);
    // The first slice is committed (visible to another connection) long before the twentieth.
    for (let i = 0; (await db.dataSource.getRepository(RunEntity).countBy({ taskId: id })) === 0; i++) {
      if (i > 5_000) throw new Error('no slice of the backfill was written');
      await new Promise((r) => setImmediate(r));
    }
    const cancel = await t.http().delete(`/api/tasks/${id}/backfill`).set(acme.adminKey);
    expect(cancel.status).toBe(200);
    const res = await writing;
    expect(res.status).toBe(201);
    const { fires, created, alreadyRun, notWritten } = res.body as { fires: number; created: number; alreadyRun: number; notWritten: number };
    expect(fires).toBe(FIRES);
    expect(alreadyRun).toBe(0);
    expect(notWritten).toBeGreaterThan(0);
    expect(created + notWritten).toBe(FIRES);
    expect(created % BACKFILL_SLICE).toBe(0); // whole slices
    const runs = await backfillRuns(id);
    expect(runs).toHaveLength(created);
    expect(runs.filter((r) => r.state !== 'CANCELLED')).toEqual([]);
    expect(cancel.body).toEqual({ cancelled: created });
    expect((await db.dataSource.getRepository(TaskEntity).findOneByOrFail({ id })).backfillCancels).toBe(1);

    // The same request again writes every fire not run yet (a new backfill: the cancel was before it).
    const again = await t.http().post(`/api/tasks/${id}/backfill`).set(acme.adminKey).send({ from: T0 - FIRES * 1000, to: T0, ratePerSec: 1000 });
    expect(again.body).toMatchObject({ fires: FIRES, created: notWritten, alreadyRun: created, notWritten: 0 });
    const all = await backfillRuns(id);
    expect(all).toHaveLength(FIRES);
    expect(new Set(all.map((r) => r.fireKey)).size).toBe(FIRES);
    expect(all.filter((r) => r.state === 'PENDING')).toHaveLength(notWritten);
  }, 60_000);

  it('writes the slices after its tenant moved to another engine group in that group, where its engines claim them', async () => {
    const operator = await seedOperator(t, db.dataSource, 'mover');
    expect((await t.http().post('/api/operator/engine-groups').set(operator).send({ name: 'moved-to' })).status).toBe(201);
    const task = await t.http().post('/api/tasks').set(acme.adminKey).send(cronTask('every-second-moved', secondly));
    const id = task.body.id as number;
    const writing = t.http().post(`/api/tasks/${id}/backfill`).set(acme.adminKey).send({ from: T0 - FIRES * 1000, to: T0, ratePerSec: 1000 }).then((res) => res);
    for (let i = 0; (await db.dataSource.getRepository(RunEntity).countBy({ taskId: id })) === 0; i++) {
      if (i > 5_000) throw new Error('no slice of the backfill was written');
      await new Promise((r) => setImmediate(r));
    }
    try {
      expect((await t.http().patch('/api/operator/tenants/acme').set(operator).send({ engineGroup: 'moved-to', allowUnserved: true })).status).toBe(200);
      expect((await writing).body).toMatchObject({ created: FIRES });
      const runs = await backfillRuns(id);
      expect(runs).toHaveLength(FIRES);
      expect(runs.filter((r) => r.engineGroup !== 'moved-to').map((r) => r.fireKey)).toEqual([]);
    } finally {
      expect((await t.http().patch('/api/operator/tenants/acme').set(operator).send({ engineGroup: 'default', allowUnserved: true })).status).toBe(200);
    }
  }, 60_000);

  it("is not stopped by another tenant's cancel, nor by a cancel before it started", async () => {
    const other = await seedTenant(t, db.dataSource, 'globex');
    const task = await t.http().post('/api/tasks').set(acme.adminKey).send(cronTask('hourly', { trigger: { kind: 'CRON', expression: '0 0 * * * *', timeZone: 'UTC' } }));
    const id = task.body.id as number;
    expect((await t.http().delete(`/api/tasks/${id}/backfill`).set(other.adminKey)).status).toBe(404);
    expect((await t.http().delete(`/api/tasks/${id}/backfill`).set(acme.adminKey)).body).toEqual({ cancelled: 0 });
    const res = await t.http().post(`/api/tasks/${id}/backfill`).set(acme.adminKey).send({ from: T0 - 3 * 3_600_000, to: T0 });
    expect(res.body).toMatchObject({ fires: 3, created: 3, alreadyRun: 0, notWritten: 0 });
  });
});
