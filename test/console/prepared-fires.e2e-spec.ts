/**
 * Prepared fires follow the task (domain prepared-fires.ts): engines plan, claim and even send a
 * scheduled fire ahead of its instant (BATON_LOOK_AHEAD_MS, BATON_SEND_AHEAD_MS). A pause
 * withdraws every one whose instant has not come; an edit of a field a fire carries withdraws
 * those more than EDIT_REACHES_FIRES_AFTER_MS ahead — through the pause routes, PATCH/PUT, a
 * group pause and a tasks-as-code apply alike. A plan no engine took is deleted; one an engine
 * took but never sent ends CANCELLED under a freed fire key, and its instant is given back: the
 * task's next fire time and fire count are rewound, so the planner plans it again from the task as
 * it now is. One an engine may have sent (DISPATCHED, ACCEPTED, or given back to PENDING by a
 * takeover with its dispatch mark) ends CANCELLED and UNSETTLED under its fire key, its instant
 * kept until its executor says it never started it, and the engines are told to abort it there
 * after the commit. A task's first dependency edge
 * withdraws as an edit does (its fires' claims read that it had no child). Deleting a task has the
 * engines abort its runs they may have sent.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EDIT_REACHES_FIRES_AFTER_MS } from '@baton/domain';
import type { RunCancels } from '@baton/messaging';
import { RunEntity, TaskEntity, WITHDRAWN_BY } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { cronTask, insertRun, seedTenant, startConsole, T0, type ConsoleTestApp, type SeededTenant } from './console-test-kit';

const EVERY_MINUTE = { kind: 'CRON', expression: '0 * * * * *', timeZone: 'UTC' };

describe.each(TEST_DATABASES)('prepared fires follow pauses and edits on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let acme: SeededTenant;
  /** What the console told the engines of cancelled runs (RunWakeups.cancelled). */
  const cancelNotices: RunCancels[] = [];
  let seq = 0;

  beforeAll(async () => {
    t = await startConsole(db.dataSource, T0, { wakeups: { wake: () => undefined, cancelled: (c) => cancelNotices.push(c) } });
    acme = await seedTenant(t, db.dataSource, 'acme');
  });
  afterAll(() => t?.close());
  beforeEach(() => {
    cancelNotices.splice(0);
  });

  /** A task firing every minute that the planner has fired `fireCount` times, its next fire at `nextFireAt`. */
  const task = async (planner: { fireCount: number; nextFireAt: number }) => {
    const created = await t.http().post('/api/tasks').set(acme.admin).send(cronTask(`every-minute-${++seq}`, { trigger: EVERY_MINUTE }));
    expect(created.status, created.text).toBe(201);
    await db.dataSource.getRepository(TaskEntity).update({ id: created.body.id }, planner);
    return created.body.id as number;
  };
  const fire = (taskId: number, state: RunEntity['state'], scheduledAt: number, more: Partial<RunEntity> = {}) =>
    insertRun(db.dataSource, 'acme', taskId, { state, scheduledAt, dueAt: scheduledAt, fireKey: `s:${scheduledAt}`, ...more });
  const runsOf = async (taskId: number) => {
    const rows = await db.dataSource.getRepository(RunEntity).find({ where: { taskId }, order: { id: 'ASC' } });
    return Object.fromEntries(rows.map((r) => [r.id, { state: r.state, error: r.error, fireKey: r.fireKey, withdrawal: r.withdrawal }]));
  };
  const plannerOf = async (taskId: number) => {
    const row = await db.dataSource.getRepository(TaskEntity).findOneByOrFail({ id: taskId });
    return { fireCount: row.fireCount, nextFireAt: row.nextFireAt };
  };
  const versionOf = async (taskId: number) => (await t.http().get(`/api/tasks/${taskId}`).set(acme.admin)).body.version as number;

  it('a pause withdraws every fire not come yet: a plan deleted, a claimed one cancelled, a sent one cancelled unsettled and aborted; the rest run; the schedule rewound', async () => {
    const id = await task({ fireCount: 7, nextFireAt: T0 + 60_000 });
    const planned = await fire(id, 'PENDING', T0 + 5_000);
    const claimed = await fire(id, 'CLAIMED', T0 + 3_000);
    const sentAhead = await fire(id, 'ACCEPTED', T0 + 1_000, { dispatchedAt: T0 + 1_000, acceptedAt: T0 + 1_000 });
    // Sent ahead by an engine that died: the takeover gave it back to PENDING with its dispatch mark; its executor may hold it.
    const takenOver = await fire(id, 'PENDING', T0 + 4_000, { dispatchedAt: T0 - 2_000 });
    const underWay = await fire(id, 'ACCEPTED', T0 - 1_000, { dispatchedAt: T0 - 1_000 });
    const manual = await fire(id, 'PENDING', T0 + 5_000, { cause: 'MANUAL', fireKey: 'm:1' });
    expect((await t.http().post(`/api/tasks/${id}/pause`).set(acme.admin)).status).toBe(200);
    const unsettled = (at: number) => ({ state: 'CANCELLED', error: WITHDRAWN_BY.pause, fireKey: `s:${at}`, withdrawal: 'UNSETTLED' });
    expect(await runsOf(id)).toEqual({
      [claimed.id]: { state: 'CANCELLED', error: WITHDRAWN_BY.pause, fireKey: `w:${claimed.id}`, withdrawal: null },
      [sentAhead.id]: unsettled(T0 + 1_000),
      [takenOver.id]: unsettled(T0 + 4_000),
      [underWay.id]: { state: 'ACCEPTED', error: null, fireKey: `s:${T0 - 1_000}`, withdrawal: null },
      [manual.id]: { state: 'PENDING', error: null, fireKey: 'm:1', withdrawal: null },
    });
    expect(planned.id in (await runsOf(id))).toBe(false);
    expect(cancelNotices).toEqual([{ tenantId: 'acme', engineGroup: 'default', runIds: [sentAhead.id, takenOver.id] }]);
    // The run views tell it: the run, the task's runs.
    expect((await t.http().get(`/api/runs/${takenOver.id}`).set(acme.admin)).body).toMatchObject({ state: 'CANCELLED', withdrawal: 'UNSETTLED', error: WITHDRAWN_BY.pause });
    const listed = (await t.http().get(`/api/runs?taskId=${id}`).set(acme.admin)).body.items as Array<{ id: number; withdrawal: string | null }>;
    expect(Object.fromEntries(listed.map((r) => [r.id, r.withdrawal]))).toEqual({ [claimed.id]: null, [sentAhead.id]: 'UNSETTLED', [takenOver.id]: 'UNSETTLED', [underWay.id]: null, [manual.id]: null });
    // The instants of the plan and the claimed fire are given back; the sent ones' wait for their executor's word.
    expect(await plannerOf(id)).toEqual({ fireCount: 5, nextFireAt: T0 + 3_000 });
    // Resuming withdraws nothing and keeps the rewound next fire (the planner's misfire policy applies if it has passed).
    expect((await t.http().post(`/api/tasks/${id}/resume`).set(acme.admin)).status).toBe(200);
    expect(await plannerOf(id)).toEqual({ fireCount: 5, nextFireAt: T0 + 3_000 });
    expect(cancelNotices).toHaveLength(1);
  });

  it('a pause through PATCH, and a group pause, withdraw as the pause route does', async () => {
    const id = await task({ fireCount: 1, nextFireAt: T0 + 60_000 });
    const next = await fire(id, 'CLAIMED', T0 + 30_000);
    expect((await t.http().patch(`/api/tasks/${id}`).set(acme.admin).send({ version: await versionOf(id), paused: true })).status).toBe(200);
    expect((await runsOf(id))[next.id]).toMatchObject({ state: 'CANCELLED', error: WITHDRAWN_BY.pause });
    expect(await plannerOf(id)).toEqual({ fireCount: 0, nextFireAt: T0 + 30_000 });

    const grouped = await t.http().post('/api/tasks').set(acme.admin).send(cronTask('grouped', { trigger: EVERY_MINUTE, group: 'nightly' }));
    await db.dataSource.getRepository(TaskEntity).update({ id: grouped.body.id }, { fireCount: 1, nextFireAt: T0 + 60_000 });
    const planned = await fire(grouped.body.id, 'PENDING', T0 + 2_000);
    expect((await t.http().post('/api/task-groups/nightly/pause').set(acme.admin)).status).toBe(200);
    expect(planned.id in (await runsOf(grouped.body.id))).toBe(false);
    expect(await plannerOf(grouped.body.id)).toEqual({ fireCount: 0, nextFireAt: T0 + 2_000 });
  });

  it('an edit of a field a fire carries withdraws the fires more than its margin ahead, to be planned again as the task now says', async () => {
    const id = await task({ fireCount: 10, nextFireAt: T0 + 120_000 });
    const near = await fire(id, 'ACCEPTED', T0 + EDIT_REACHES_FIRES_AFTER_MS, { dispatchedAt: T0 + 1_000 });
    const planned = await fire(id, 'PENDING', T0 + 60_000);
    const sent = await fire(id, 'DISPATCHED', T0 + 30_000, { dispatchedAt: T0 + 30_000 });
    // A rename reaches every fire already (read when it applies): nothing is withdrawn.
    expect((await t.http().patch(`/api/tasks/${id}`).set(acme.admin).send({ version: await versionOf(id), name: `renamed-${id}` })).status).toBe(200);
    expect(Object.keys(await runsOf(id))).toHaveLength(3);
    expect(cancelNotices).toEqual([]);

    const edited = await t.http().patch(`/api/tasks/${id}`).set(acme.admin).send({ version: await versionOf(id), params: { region: 'us' } });
    expect(edited.status, edited.text).toBe(200);
    expect(await runsOf(id)).toEqual({
      [near.id]: { state: 'ACCEPTED', error: null, fireKey: `s:${T0 + 1_000}`, withdrawal: null },
      [sent.id]: { state: 'CANCELLED', error: WITHDRAWN_BY.edit, fireKey: `s:${T0 + 30_000}`, withdrawal: 'UNSETTLED' },
    });
    expect(planned.id in (await runsOf(id))).toBe(false);
    expect(cancelNotices).toEqual([{ tenantId: 'acme', engineGroup: 'default', runIds: [sent.id] }]);
    expect(await plannerOf(id)).toEqual({ fireCount: 9, nextFireAt: T0 + 60_000 });
    // The API shows the next instant the task fires: the near fire, which runs as prepared.
    expect(edited.body).toMatchObject({ fireCount: 9, nextFireAt: T0 + 1_000 });
  });

  it('a new trigger withdraws the old one’s fires and plans from now; a save refused keeps every fire', async () => {
    const id = await task({ fireCount: 3, nextFireAt: T0 + 120_000 });
    const old = await fire(id, 'CLAIMED', T0 + 60_000);
    const refused = await t.http().patch(`/api/tasks/${id}`).set(acme.admin).send({ version: await versionOf(id), endAt: T0 - 1 });
    expect(refused.status).toBe(400);
    expect((await runsOf(id))[old.id].state).toBe('CLAIMED');
    expect(cancelNotices).toEqual([]);
    const hourly = await t.http().patch(`/api/tasks/${id}`).set(acme.admin).send({ version: await versionOf(id), trigger: { kind: 'CRON', expression: '0 0 * * * *', timeZone: 'UTC' } });
    expect(hourly.status, hourly.text).toBe(200);
    expect((await runsOf(id))[old.id]).toMatchObject({ state: 'CANCELLED', error: WITHDRAWN_BY.edit });
    expect(await plannerOf(id)).toEqual({ fireCount: 0, nextFireAt: T0 });
  });

  it('a tasks-as-code apply withdraws as a save does: a pause in the file, an edit in the file', async () => {
    const file = (params: string, paused: boolean) =>
      `version: 1\ntasks:\n  - name: as-code\n    executorApp: billing\n    handler: closeDay\n    trigger: { kind: CRON, expression: "0 * * * * *", timeZone: UTC }\n    params: ${params}\n    paused: ${paused}\n`;
    expect((await t.http().post('/api/config/apply').set(acme.admin).send({ file: file('{ region: eu }', false) })).status).toBe(200);
    const id = (await db.dataSource.getRepository(TaskEntity).findOneByOrFail({ tenantId: 'acme', name: 'as-code' })).id;
    const first = await fire(id, 'CLAIMED', T0 + 20_000);
    const applied = await t.http().post('/api/config/apply').set(acme.admin).send({ file: file('{ region: us }', false) });
    expect(applied.status, applied.text).toBe(200);
    expect((await runsOf(id))[first.id]).toMatchObject({ state: 'CANCELLED', error: WITHDRAWN_BY.edit });
    const second = await fire(id, 'ACCEPTED', T0 + 20_000, { fireKey: `s:${T0 + 20_000}`, dispatchedAt: T0 + 20_000 });
    expect((await t.http().post('/api/config/apply').set(acme.admin).send({ file: file('{ region: us }', true) })).status).toBe(200);
    expect((await runsOf(id))[second.id]).toMatchObject({ state: 'CANCELLED', error: WITHDRAWN_BY.pause });
    expect(cancelNotices.flatMap((n) => n.runIds)).toEqual([second.id]);
  });

  it("a calendar's new dates reach the prepared fires of the tasks using it: those more than the margin ahead withdrawn, planned again past the dates now excluded", async () => {
    const created = await t.http().post('/api/calendars').set(acme.admin).send({ name: 'closures', timeZone: 'UTC', dates: ['2020-01-01'] });
    expect(created.status, created.text).toBe(201);
    const hourly = await t.http().post('/api/tasks').set(acme.admin).send(cronTask('hourly-open-days', { trigger: { kind: 'CRON', expression: '0 0 * * * *', timeZone: 'UTC' }, calendarName: 'closures' }));
    expect(hourly.status, hourly.text).toBe(201);
    const id = hourly.body.id as number;
    await db.dataSource.getRepository(TaskEntity).update({ id }, { fireCount: 5, nextFireAt: T0 + 3 * 3_600_000 });
    const near = await fire(id, 'ACCEPTED', T0 + EDIT_REACHES_FIRES_AFTER_MS, { dispatchedAt: T0 + 1_000 });
    const sent = await fire(id, 'ACCEPTED', T0 + 3_600_000, { dispatchedAt: T0 + 3_600_000 });
    const planned = await fire(id, 'PENDING', T0 + 2 * 3_600_000);
    // T0's date (2026-03-01) closes: the fires on it not within the margin do not run on it.
    const closed = await t.http().patch(`/api/calendars/${created.body.id}`).set(acme.admin).send({ dates: ['2020-01-01', '2026-03-01'] });
    expect(closed.status, closed.text).toBe(200);
    expect(await runsOf(id)).toEqual({
      [near.id]: { state: 'ACCEPTED', error: null, fireKey: `s:${T0 + 1_000}`, withdrawal: null },
      [sent.id]: { state: 'CANCELLED', error: WITHDRAWN_BY.calendar, fireKey: `s:${T0 + 3_600_000}`, withdrawal: 'UNSETTLED' },
    });
    expect(planned.id in (await runsOf(id))).toBe(false);
    expect(cancelNotices).toEqual([{ tenantId: 'acme', engineGroup: 'default', runIds: [sent.id] }]);
    // The sent fire's instant waits for its executor's word; the plan's is given back, planned past the closed date.
    expect(await plannerOf(id)).toEqual({ fireCount: 4, nextFireAt: Date.UTC(2026, 2, 2) });
    // A rename moves no fire: nothing withdrawn.
    const again = await fire(id, 'PENDING', Date.UTC(2026, 2, 2));
    expect((await t.http().patch(`/api/calendars/${created.body.id}`).set(acme.admin).send({ name: 'closed-days' })).status).toBe(200);
    expect(again.id in (await runsOf(id))).toBe(true);
  });

  it("a task's first dependency withdraws its fires more than the margin ahead (their claims knew of no child); a second edge, or one into it, withdraws nothing", async () => {
    const parent = await task({ fireCount: 6, nextFireAt: T0 + 120_000 });
    const child = await task({ fireCount: 0, nextFireAt: T0 + 60_000 });
    const near = await fire(parent, 'ACCEPTED', T0 + EDIT_REACHES_FIRES_AFTER_MS, { dispatchedAt: T0 + 1_000 });
    const sent = await fire(parent, 'ACCEPTED', T0 + 60_000, { dispatchedAt: T0 + 60_000 });
    const planned = await fire(parent, 'PENDING', T0 + 120_000);
    const manual = await fire(parent, 'DISPATCHED', T0 + 30_000, { cause: 'MANUAL', fireKey: 'm:dep' });
    const childFire = await fire(child, 'CLAIMED', T0 + 60_000);
    const edge = await t.http().post('/api/dependencies').set(acme.admin).send({ parentTaskId: parent, childTaskId: child });
    expect(edge.status, edge.text).toBe(201);
    expect(await runsOf(parent)).toEqual({
      [near.id]: { state: 'ACCEPTED', error: null, fireKey: `s:${T0 + 1_000}`, withdrawal: null },
      [sent.id]: { state: 'CANCELLED', error: WITHDRAWN_BY.dependency, fireKey: `s:${T0 + 60_000}`, withdrawal: 'UNSETTLED' },
      [manual.id]: { state: 'DISPATCHED', error: null, fireKey: 'm:dep', withdrawal: null },
    });
    expect(planned.id in (await runsOf(parent))).toBe(false);
    expect(cancelNotices).toEqual([{ tenantId: 'acme', engineGroup: 'default', runIds: [sent.id] }]);
    expect(await plannerOf(parent)).toEqual({ fireCount: 5, nextFireAt: T0 + 120_000 });
    expect((await runsOf(child))[childFire.id].state).toBe('CLAIMED');

    // The parent has a child now: another edge out of it, or one into it, leaves every fire as it is.
    const other = await task({ fireCount: 0, nextFireAt: T0 + 60_000 });
    const again = await fire(parent, 'CLAIMED', T0 + 120_000);
    const otherFire = await fire(other, 'CLAIMED', T0 + 60_000);
    expect((await t.http().post('/api/dependencies').set(acme.admin).send({ parentTaskId: parent, childTaskId: other })).status).toBe(201);
    expect((await runsOf(parent))[again.id].state).toBe('CLAIMED');
    expect((await runsOf(other))[otherFire.id].state).toBe('CLAIMED');
    expect(cancelNotices).toHaveLength(1);
  });

  it('a tasks-as-code apply that gives a task its first child withdraws as the edge route does', async () => {
    const file = (edges: boolean) =>
      `version: 1\ntasks:\n  - name: feeds\n    executorApp: billing\n    handler: closeDay\n    trigger: { kind: CRON, expression: "0 * * * * *", timeZone: UTC }\n` +
      `  - name: fed\n    executorApp: billing\n    handler: closeDay\n    trigger: { kind: MANUAL }\n` +
      (edges ? `dependencies:\n  - { parent: feeds, child: fed }\n` : '');
    expect((await t.http().post('/api/config/apply').set(acme.admin).send({ file: file(false) })).status).toBe(200);
    const id = (await db.dataSource.getRepository(TaskEntity).findOneByOrFail({ tenantId: 'acme', name: 'feeds' })).id;
    const claimed = await fire(id, 'CLAIMED', T0 + 20_000);
    const applied = await t.http().post('/api/config/apply').set(acme.admin).send({ file: file(true) });
    expect(applied.status, applied.text).toBe(200);
    expect((await runsOf(id))[claimed.id]).toMatchObject({ state: 'CANCELLED', error: WITHDRAWN_BY.dependency });
    // Never sent (no dispatch mark): nothing to abort.
    expect(cancelNotices).toEqual([]);
  });

  it("the API's nextFireAt is the next instant the task fires that has not come: its earliest prepared fire not ended, else the planner's cursor", async () => {
    const id = await task({ fireCount: 9, nextFireAt: T0 + 60_000 });
    await fire(id, 'ACCEPTED', T0 - 1_000, { dispatchedAt: T0 - 1_000 }); // its instant has come: it fired
    await fire(id, 'CANCELLED', T0 + 1_000); // withdrawn: it will not fire
    await fire(id, 'PENDING', T0 + 2_000, { cause: 'MANUAL', fireKey: 'm:next-fire' }); // not the schedule's
    await fire(id, 'ACCEPTED', T0 + 3_000, { dispatchedAt: T0, acceptedAt: T0 }); // sent ahead, waiting for its instant
    await fire(id, 'PENDING', T0 + 4_000);
    // The cursor first: a withdrawn fire's instant given back, its later ones still planned.
    const rewound = await task({ fireCount: 3, nextFireAt: T0 + 5_000 });
    await fire(rewound, 'CLAIMED', T0 + 6_000);
    const unplanned = await task({ fireCount: 0, nextFireAt: T0 + 60_000 });

    const one = async (taskId: number) => (await t.http().get(`/api/tasks/${taskId}`).set(acme.admin)).body.nextFireAt as number;
    expect([await one(id), await one(rewound), await one(unplanned)]).toEqual([T0 + 3_000, T0 + 5_000, T0 + 60_000]);
    const listed = (await t.http().get('/api/tasks?limit=500').set(acme.admin)).body.items as Array<{ id: number; nextFireAt: number }>;
    const shown = new Map(listed.map((x) => [x.id, x.nextFireAt]));
    expect([shown.get(id), shown.get(rewound), shown.get(unplanned)]).toEqual([T0 + 3_000, T0 + 5_000, T0 + 60_000]);
    // The engines' cursor itself is left as it is.
    expect(await plannerOf(id)).toEqual({ fireCount: 9, nextFireAt: T0 + 60_000 });
  });

  it('deleting a task has the engines abort its runs they may have sent', async () => {
    const id = await task({ fireCount: 0, nextFireAt: T0 + 60_000 });
    const sent = await fire(id, 'ACCEPTED', T0 + 10_000, { dispatchedAt: T0 + 10_000 });
    const waiting = await fire(id, 'PENDING', T0 + 20_000);
    expect((await t.http().delete(`/api/tasks/${id}`).set(acme.admin)).status).toBe(204);
    expect(cancelNotices).toEqual([{ tenantId: 'acme', engineGroup: 'default', runIds: [sent.id] }]);
    expect((await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id: waiting.id })).state).toBe('CANCELLED');
  });
});
