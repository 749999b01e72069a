import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pauseFailingTask } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { cronTask, insertRun, seedTenant, startConsole, T0, type ConsoleTestApp, type Credentials, type SeededTenant } from './console-test-kit';

interface Version {
  version: number;
  actor: string | null;
  changes: Array<{ field: string; before: unknown; after: unknown }>;
  nextFireTimes: number[];
  current: boolean;
  definition: Record<string, unknown>;
}

describe.each(TEST_DATABASES)('task versions on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let alpha: SeededTenant;
  let bravo: SeededTenant;

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    alpha = await seedTenant(t, db.dataSource, 'alpha');
    bravo = await seedTenant(t, db.dataSource, 'bravo');
  });
  afterAll(() => t?.close());

  const versions = async (id: number): Promise<Version[]> => {
    const res = await t.http().get(`/api/tasks/${id}/versions`).set(alpha.viewer);
    expect(res.status).toBe(200);
    return res.body;
  };

  it('keeps a version per change, with its diff, its author and the fire times it gives; a refused save keeps none', async () => {
    const created = await t.http().post('/api/tasks').set(alpha.admin).send(cronTask('nightly', { trigger: { kind: 'CRON', expression: '0 0 2 * * *', timeZone: 'UTC' } }));
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    expect((await t.http().patch(`/api/tasks/${id}`).set(alpha.adminKey).send({ trigger: { kind: 'CRON', expression: '0 30 3 * * *', timeZone: 'UTC' } })).status).toBe(200);
    expect((await t.http().patch(`/api/tasks/${id}`).set(alpha.admin).send({ trigger: { kind: 'CRON', expression: 'not cron', timeZone: 'UTC' } })).status).toBe(400);
    expect((await t.http().post(`/api/tasks/${id}/pause`).set(alpha.admin)).status).toBe(200);

    const list = await versions(id);
    expect(list.map((v) => v.version)).toEqual([3, 2, 1]);
    expect(list.map((v) => v.actor)).toEqual(['alpha-admin', 'api-key:alpha-TENANT_ADMIN', 'alpha-admin']);
    expect(list.map((v) => v.current)).toEqual([true, false, false]);
    expect(list[0].changes).toEqual([{ field: 'paused', before: false, after: true }]);
    expect(list[1].changes).toEqual([{ field: 'trigger.expression', before: '0 0 2 * * *', after: '0 30 3 * * *' }]);
    expect(list[2].changes).toEqual([]);
    // T0 is 2026-03-01T00:00Z: version 1 fires at 02:00 UTC, version 2 at 03:30.
    expect(list[2].nextFireTimes.slice(0, 2)).toEqual([T0 + 2 * 3_600_000, T0 + 26 * 3_600_000]);
    expect(list[1].nextFireTimes[0]).toBe(T0 + 3.5 * 3_600_000);
  });

  it('shows secret-named params redacted, as the audit log does, after a rotation too; a restore takes the stored value', async () => {
    const id = (await t.http().post('/api/tasks').set(alpha.admin).send(cronTask('with-secret', { params: { region: 'eu', apiToken: 'tok-first', auth: { password: 'pw-first' } } }))).body.id as number;
    expect((await t.http().patch(`/api/tasks/${id}`).set(alpha.admin).send({ params: { region: 'eu', apiToken: 'tok-rotated', auth: { password: 'pw-rotated' } } })).status).toBe(200);
    const res = await t.http().get(`/api/tasks/${id}/versions`).set(alpha.viewer);
    expect(res.text).not.toMatch(/tok-first|tok-rotated|pw-first|pw-rotated/);
    const list = res.body as Version[];
    expect(list[1].definition.params).toEqual({ region: 'eu', apiToken: '[redacted]', auth: { password: '[redacted]' } });
    expect(list[0].changes).toEqual([
      { field: 'params.apiToken', before: '[redacted]', after: '[redacted]' },
      { field: 'params.auth.password', before: '[redacted]', after: '[redacted]' },
    ]);
    expect((await t.http().post(`/api/tasks/${id}/versions/1/restore`).set(alpha.admin)).status).toBe(200);
    expect((await t.http().get(`/api/tasks/${id}`).set(alpha.admin)).body.params).toEqual({ region: 'eu', apiToken: 'tok-first', auth: { password: 'pw-first' } });
  });

  const searchParams = async (who: Credentials, q: string): Promise<number[]> => {
    const res = await t.http().get(`/api/runs/search?field=params&q=${encodeURIComponent(q)}&from=0&to=${Number.MAX_SAFE_INTEGER}`).set(who);
    expect(res.status, res.text).toBe(200);
    return (res.body.items as Array<{ id: number }>).map((r) => r.id);
  };

  it("shows a viewer a task's secret-named params redacted by the same rule — the task, the list, the tasks-as-code export, its runs — and an admin in clear", async () => {
    const params = { region: 'eu', dbPassword: 'pw-now', nested: { apiToken: 'tok-now' } };
    const id = (await t.http().post('/api/tasks').set(alpha.admin).send(cronTask('viewer-sees', { params }))).body.id as number;
    const run = await t.http().post(`/api/tasks/${id}/trigger`).set(alpha.admin).send({});
    expect(run.status).toBe(201);
    const redacted = { region: 'eu', dbPassword: '[redacted]', nested: { apiToken: '[redacted]' } };
    for (const viewer of [alpha.viewer, alpha.viewerKey]) {
      const seen = await t.http().get(`/api/runs/${run.body.id}`).set(viewer);
      expect(seen.body.params).toEqual(redacted);
      expect(seen.text).not.toMatch(/pw-now|tok-now/);
      // A params search finds a secret for no viewer (it would tell it a character at a time), what it sees yes.
      expect(await searchParams(viewer, 'tok-n')).not.toContain(run.body.id);
      expect(await searchParams(viewer, 'dbPassword')).toContain(run.body.id);
      const one = await t.http().get(`/api/tasks/${id}`).set(viewer);
      expect(one.body.params).toEqual(redacted);
      const list = await t.http().get('/api/tasks?search=viewer-sees').set(viewer);
      expect(list.body.items.map((task: { params: unknown }) => task.params)).toEqual([redacted]);
      const file = await t.http().get('/api/config/export').set(viewer);
      expect(file.status).toBe(200);
      expect(file.text).toContain('# Secret-named values');
      expect(`${one.text}${list.text}${file.text}`).not.toMatch(/pw-now|tok-now/);
    }
    expect((await t.http().get(`/api/tasks/${id}`).set(alpha.admin)).body.params).toEqual(params);
    expect((await t.http().get(`/api/runs/${run.body.id}`).set(alpha.adminKey)).body.params).toEqual(params);
    expect(await searchParams(alpha.adminKey, 'tok-n')).toContain(run.body.id);
    const adminFile = (await t.http().get('/api/config/export').set(alpha.adminKey)).text;
    expect(adminFile).toMatch(/pw-now[\s\S]*tok-now/);
    expect(adminFile).not.toContain('# Secret-named values');
  });

  it('restores a version as a new one, audited; another tenant sees and restores nothing', async () => {
    const id = (await t.http().post('/api/tasks').set(alpha.admin).send(cronTask('restorable'))).body.id as number;
    await t.http().patch(`/api/tasks/${id}`).set(alpha.admin).send({ priority: 7, params: { region: 'us' } });
    expect((await t.http().get(`/api/tasks/${id}/versions`).set(bravo.admin)).status).toBe(404);
    expect((await t.http().post(`/api/tasks/${id}/versions/1/restore`).set(bravo.admin)).status).toBe(404);
    expect((await t.http().post(`/api/tasks/${id}/versions/1/restore`).set(alpha.viewer)).status).toBe(403);

    const restored = await t.http().post(`/api/tasks/${id}/versions/1/restore`).set(alpha.admin);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ priority: 0, params: { region: 'eu' }, version: 3 });
    const list = await versions(id);
    expect(list[0]).toMatchObject({ version: 3, current: true });
    expect(list[0].changes).toEqual([
      { field: 'params.region', before: 'us', after: 'eu' },
      { field: 'priority', before: 7, after: 0 },
    ]);
    const audit = await t.http().get('/api/audit').query({ objectType: 'task', objectId: String(id) }).set(alpha.admin);
    expect(audit.body.items.map((r: { action: string }) => r.action)).toEqual(['task.restore', 'task.update', 'task.create']);
    expect((await t.http().post(`/api/tasks/${id}/versions/99/restore`).set(alpha.admin)).status).toBe(404);
    expect((await t.http().post(`/api/tasks/${id}/versions/0/restore`).set(alpha.admin)).body.errors).toEqual([{ field: 'version', reason: expect.any(String) }]);
  });

  it('keeps the versions of a batch and of a group pause, one per task', async () => {
    const batch = await t.http().post('/api/tasks/batch').set(alpha.admin).send({ tasks: [cronTask('g1', { group: 'night' }), cronTask('g2', { group: 'night' })] });
    expect(batch.status).toBe(201);
    expect((await t.http().post('/api/task-groups/night/pause').set(alpha.admin)).body.tasks).toBe(2);
    for (const item of batch.body.items as Array<{ id: number }>) {
      const list = await versions(item.id);
      expect(list.map((v) => v.version)).toEqual([2, 1]);
      expect(list[0].changes).toEqual([{ field: 'paused', before: false, after: true }]);
    }
  });

  it("numbers the versions without a gap: the engine's auto-pause keeps one, naming itself; a calendar's edit, which changes no definition, none", async () => {
    const calendar = await t.http().post('/api/calendars').set(alpha.admin).send({ name: 'closed-days', timeZone: 'UTC', dates: [] });
    expect(calendar.status).toBe(201);
    const created = await t
      .http()
      .post('/api/tasks')
      .set(alpha.admin)
      .send(cronTask('flaky', { trigger: { kind: 'CRON', expression: '0 0 2 * * *', timeZone: 'UTC' }, calendarName: 'closed-days', pauseAfterFailures: 2 }));
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    // T0 is 2026-03-01: closing that day moves the task's next fire to the 2nd, and not its version.
    expect((await t.http().put(`/api/calendars/${calendar.body.id}`).set(alpha.admin).send({ name: 'closed-days', timeZone: 'UTC', dates: ['2026-03-01'] })).status).toBe(200);
    const moved = await t.http().get(`/api/tasks/${id}`).set(alpha.viewer);
    expect(moved.body).toMatchObject({ nextFireAt: T0 + 26 * 3_600_000, version: 1 });

    for (const at of [T0 - 120_000, T0 - 60_000]) await insertRun(db.dataSource, alpha.id, id, { state: 'FAILED', scheduledAt: at, finishedAt: at + 1000 });
    expect(await pauseFailingTask(db.dataSource.manager, { taskId: id, now: T0 })).toBe(2);
    expect((await t.http().patch(`/api/tasks/${id}`).set(alpha.admin).send({ priority: 5 })).status).toBe(200);

    const list = await versions(id);
    expect(list.map((v) => v.version)).toEqual([3, 2, 1]);
    expect((await t.http().get(`/api/tasks/${id}`).set(alpha.viewer)).body.version).toBe(3);
    expect(list.map((v) => v.actor)).toEqual(['alpha-admin', 'engine (auto-pause after 2 failed runs)', 'alpha-admin']);
    expect(list[1].changes).toEqual([{ field: 'paused', before: false, after: true }]);
    expect(list[0].changes).toEqual([{ field: 'priority', before: 0, after: 5 }]);
  });

  it('keeps a version of every task using a calendar when the calendar is renamed: the definition names the new calendar, and it is the current one', async () => {
    const calendar = await t.http().post('/api/calendars').set(alpha.admin).send({ name: 'holidays', timeZone: 'UTC', dates: [] });
    const make = (name: string) => t.http().post('/api/tasks').set(alpha.admin).send(cronTask(name, { calendarName: 'holidays' }));
    const ids = [(await make('uses-holidays-1')).body.id as number, (await make('uses-holidays-2')).body.id as number];
    expect((await t.http().patch(`/api/calendars/${calendar.body.id}`).set(alpha.admin).send({ name: 'public-holidays' })).status).toBe(200);
    for (const id of ids) {
      const list = await versions(id);
      expect(list.map((v) => v.version)).toEqual([2, 1]);
      expect(list[0]).toMatchObject({ actor: 'alpha-admin', current: true, changes: [{ field: 'calendarName', before: 'holidays', after: 'public-holidays' }] });
      expect(list[1].current).toBe(false);
      expect((await t.http().get(`/api/tasks/${id}`).set(alpha.viewer)).body).toMatchObject({ version: 2, calendarName: 'public-holidays' });
    }
  });
});
