/**
 * A FIXED_DELAY task is a chain: the planner leaves its next fire empty while a scheduled run is
 * under way, and that run's end places the next one a delay later (engine follow-ups). What the
 * console does to the task or its runs keeps the chain one chain: an edit while a run is under way
 * places no second fire beside it, a chain that ended starts again when an edit lets it fire more,
 * and a cancelled run places the next fire as any other end does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunEntity, TaskEntity } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { cronTask, insertRun, seedTenant, startConsole, T0, type ConsoleTestApp, type SeededTenant } from './console-test-kit';

const DELAY = 60_000;

describe.each(TEST_DATABASES)('a FIXED_DELAY chain through edits and cancels on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let acme: SeededTenant;
  let seq = 0;

  beforeAll(async () => {
    t = await startConsole(db.dataSource, T0, { wakeups: { wake: () => undefined, cancelled: () => undefined } });
    acme = await seedTenant(t, db.dataSource, 'acme');
  });
  afterAll(() => t?.close());

  /** A FIXED_DELAY task the planner has fired `fireCount` times, its next fire at `nextFireAt` (null: waiting for its run). */
  const task = async (planner: { fireCount: number; nextFireAt: number | null }, extra: Record<string, unknown> = {}) => {
    const created = await t.http().post('/api/tasks').set(acme.admin).send(cronTask(`chain-${++seq}`, { trigger: { kind: 'FIXED_DELAY', delayMs: DELAY }, ...extra }));
    expect(created.status, created.text).toBe(201);
    await db.dataSource.getRepository(TaskEntity).update({ id: created.body.id }, planner);
    return created.body.id as number;
  };
  /** The task's scheduled run under way at its executor since a second ago. */
  const runUnderWay = (taskId: number, more: Partial<RunEntity> = {}) =>
    insertRun(db.dataSource, 'acme', taskId, { state: 'ACCEPTED', scheduledAt: T0 - 1_000, dueAt: T0 - 1_000, dispatchedAt: T0 - 1_000, ...more });
  const plannerOf = async (taskId: number) => {
    const row = await db.dataSource.getRepository(TaskEntity).findOneByOrFail({ id: taskId });
    return { fireCount: row.fireCount, nextFireAt: row.nextFireAt };
  };
  const versionOf = async (taskId: number) => (await t.http().get(`/api/tasks/${taskId}`).set(acme.admin)).body.version as number;

  it('a new delay saved while a run is under way places no fire beside it: the run’s end places the next one', async () => {
    const id = await task({ fireCount: 4, nextFireAt: null });
    const run = await runUnderWay(id);
    const saved = await t.http().patch(`/api/tasks/${id}`).set(acme.admin).send({ version: await versionOf(id), trigger: { kind: 'FIXED_DELAY', delayMs: 2 * DELAY } });
    expect(saved.status, saved.text).toBe(200);
    expect(await plannerOf(id)).toEqual({ fireCount: 0, nextFireAt: null });
    expect((await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id: run.id })).state).toBe('ACCEPTED');
    // An end time saved meanwhile is no "never fires" either: the run under way places the next fire.
    const bounded = await t.http().patch(`/api/tasks/${id}`).set(acme.admin).send({ version: await versionOf(id), endAt: T0 + 3_600_000 });
    expect(bounded.status, bounded.text).toBe(200);
    expect(await plannerOf(id)).toEqual({ fireCount: 0, nextFireAt: null });
  });

  it('a chain ended by maxFires starts again when maxFires is raised, and a save that leaves it over is refused naming maxFires', async () => {
    const id = await task({ fireCount: 2, nextFireAt: null }, { maxFires: 2 });
    const over = await t.http().patch(`/api/tasks/${id}`).set(acme.admin).send({ version: await versionOf(id), endAt: T0 + 3_600_000 });
    expect(over.status).toBe(400);
    expect(over.body.errors).toEqual([expect.objectContaining({ field: 'maxFires' })]);
    const raised = await t.http().patch(`/api/tasks/${id}`).set(acme.admin).send({ version: await versionOf(id), maxFires: 5 });
    expect(raised.status, raised.text).toBe(200);
    expect(await plannerOf(id)).toEqual({ fireCount: 2, nextFireAt: T0 });
  });

  it('a cancelled scheduled run places the next fire a delay later, by the run’s route and by bulk cancel; a manual run’s cancel does not', async () => {
    const id = await task({ fireCount: 1, nextFireAt: null });
    const manual = await runUnderWay(id, { cause: 'MANUAL', fireKey: 'm:chain' });
    expect((await t.http().post(`/api/runs/${manual.id}/cancel`).set(acme.admin)).status).toBe(200);
    expect(await plannerOf(id)).toEqual({ fireCount: 1, nextFireAt: null });

    const run = await runUnderWay(id);
    expect((await t.http().post(`/api/runs/${run.id}/cancel`).set(acme.admin)).status).toBe(200);
    expect(await plannerOf(id)).toEqual({ fireCount: 1, nextFireAt: T0 + DELAY });

    const other = await task({ fireCount: 1, nextFireAt: null });
    const pending = await runUnderWay(other, { state: 'PENDING', dispatchedAt: null });
    const bulk = await t.http().post('/api/runs/bulk-cancel').set(acme.admin).send({ ids: [pending.id] });
    expect(bulk.status, bulk.text).toBe(200);
    expect(await plannerOf(other)).toEqual({ fireCount: 1, nextFireAt: T0 + DELAY });
  });
});
