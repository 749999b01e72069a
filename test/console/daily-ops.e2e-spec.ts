/**
 * What operators do every day (issue 24 part 2) through the console API: run now with params
 * checked against the handler's schema, re-run a finished run with its params, bulk cancel and
 * re-run (one transaction, a result per id, tenant-checked), copy a task, download a run's log.
 */
import { get } from 'node:http';
import { connect } from 'node:net';
import { EventEmitter, once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TenantHeavyWork } from '../../apps/console/src/common/tenant-heavy-work';
import { Logger } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunCancels, RunWakeup } from '@baton/messaging';
import { RunActionsService } from '../../apps/console/src/runs/run-actions.service';
import { RunsController } from '../../apps/console/src/runs/runs.controller';
import { SubmissionsService } from '../../apps/console/src/submissions/submissions.service';
import { RunEntity, searchRuns } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { cronTask, insertExecutor, insertRun, listenOnLoopback, seedTenant, startConsole, T0, type ConsoleTestApp, type SeededTenant } from './console-test-kit';

describe.each(TEST_DATABASES)('daily operations through the console API on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let acme: SeededTenant;
  let globex: SeededTenant;
  let taskId: number;

  /** What the console told the engines of cancelled runs (RunWakeups.cancelled). */
  const cancelNotices: RunCancels[] = [];
  /** What a wake-up does (RunWakeups.wake): nothing, unless a test says. */
  let onWake: (wakeup: RunWakeup) => void = () => undefined;

  beforeAll(async () => {
    t = await startConsole(db.dataSource, T0, { wakeups: { wake: (w) => onWake(w), cancelled: (c) => cancelNotices.push(c) } });
    acme = await seedTenant(t, db.dataSource, 'acme');
    globex = await seedTenant(t, db.dataSource, 'globex');
    const executor = await insertExecutor(db.dataSource, 'acme', 'images');
    const schema = { type: 'object', required: ['width'], properties: { width: { type: 'integer', minimum: 1 } } };
    await db.dataSource.query('UPDATE executors SET handlers = ?, handler_schemas = ?, heartbeat_at = ? WHERE id = ?', [JSON.stringify(['resize']), JSON.stringify({ resize: schema }), T0, executor.id]);
    const res = await t.http().post('/api/tasks').set(acme.admin).send({ name: 'resize', executorApp: 'images', handler: 'resize', trigger: { kind: 'MANUAL' }, params: { width: 10 } });
    expect(res.status).toBe(201);
    taskId = res.body.id;
  });
  afterAll(() => t?.close());

  it('runs a task now with params that fit its handler’s schema, and refuses ones that do not (400 naming the param, no run)', async () => {
    const ok = await t.http().post(`/api/tasks/${taskId}/trigger`).set(acme.admin).send({ params: { width: 640 } });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ state: 'PENDING', cause: 'MANUAL', params: { width: 640 } });
    const before = await db.dataSource.getRepository(RunEntity).count();
    const bad = await t.http().post(`/api/tasks/${taskId}/trigger`).set(acme.admin).send({ params: { width: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'params.width' })]);
    expect(await db.dataSource.getRepository(RunEntity).count()).toBe(before);
  });

  it('a run now’s wake-up names its run and leaves before the answer: an HTTP request is written a tick after it is made', async () => {
    const order: string[] = [];
    onWake = (w) => process.nextTick(() => order.push(`wake ${w.runIds?.join(',')}`)); // as http.request writes
    try {
      const { run } = await t.app.get(SubmissionsService).trigger('acme', taskId, { params: { width: 5 } });
      order.push('answered');
      expect(order).toEqual([`wake ${run.id}`, 'answered']);
      const done = await insertRun(db.dataSource, 'acme', taskId, { state: 'SUCCEEDED', finishedAt: T0 - 1000 });
      order.length = 0;
      const again = await t.app.get(RunActionsService).rerun('acme', done.id);
      order.push('answered');
      expect(order).toEqual([`wake ${again.id}`, 'answered']);
    } finally {
      onWake = () => undefined;
    }
  });

  it('re-runs a finished run with the params it ran with, and refuses an active one (409)', async () => {
    const done = await insertRun(db.dataSource, 'acme', taskId, { state: 'FAILED', params: { width: 7 }, finishedAt: T0 - 1000 });
    const res = await t.http().post(`/api/runs/${done.id}/rerun`).set(acme.admin);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ taskId, cause: 'MANUAL', state: 'PENDING', params: { width: 7 } });
    expect(res.body.id).not.toBe(done.id);
    expect((await t.http().get(`/api/runs/${res.body.id}`).set(acme.admin)).body).toEqual(res.body); // the answer is the run as stored
    const active = await insertRun(db.dataSource, 'acme', taskId, { state: 'PENDING' });
    expect((await t.http().post(`/api/runs/${active.id}/rerun`).set(acme.admin)).status).toBe(409);
    expect((await t.http().post(`/api/runs/${done.id}/rerun`).set(globex.admin)).status).toBe(404);
    expect((await t.http().post(`/api/runs/${done.id}/rerun`).set(acme.viewer)).status).toBe(403);
  });

  it("answers a request Node's parser refuses (headers past its bound) with an ErrorBody naming the headers, not a bare status line", async () => {
    const url = new URL(await listenOnLoopback(t));
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.write(`POST /api/tasks/1/trigger HTTP/1.1\r\nHost: x\r\nIdempotency-Key: ${'k'.repeat(20_000)}\r\n\r\n`);
    await once(socket, 'close');
    const answer = Buffer.concat(chunks).toString();
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ statusCode: 431, code: 'PAYLOAD_TOO_LARGE', errors: [{ field: 'headers' }] });
  });

  it('refuses a body sent to a route that takes none (a re-run with params of its own, a cancel with a reason), naming each field, and changes nothing', async () => {
    const done = await insertRun(db.dataSource, 'acme', taskId, { state: 'FAILED', params: { width: 7 }, finishedAt: T0 - 1000 });
    const runs = async () => (await db.dataSource.query('SELECT COUNT(*) AS n FROM runs'))[0].n;
    const before = await runs();
    const rerun = await t.http().post(`/api/runs/${done.id}/rerun`).set(acme.admin).send({ params: { width: 9 } });
    expect(rerun.status).toBe(400);
    expect(rerun.body.errors).toEqual([{ field: 'params', reason: 'unknown field (this route takes no body)' }]);
    expect(await runs()).toEqual(before);
    const active = await insertRun(db.dataSource, 'acme', taskId, { state: 'PENDING' });
    const cancel = await t.http().post(`/api/runs/${active.id}/cancel`).set(acme.admin).send({ reason: 'x', force: true });
    expect(cancel.status).toBe(400);
    expect(cancel.body.errors.map((e: { field: string }) => e.field)).toEqual(['reason', 'force']);
    expect((await t.http().get(`/api/runs/${active.id}`).set(acme.admin)).body.state).toBe('PENDING');
    // Who the caller is comes first: one not let in is told so, not what its body lacks.
    expect((await t.http().post(`/api/runs/${active.id}/cancel`).send({ reason: 'x' })).status).toBe(401);
    // No body, or an empty one, is what these routes take.
    expect((await t.http().post(`/api/runs/${active.id}/cancel`).set(acme.admin).send({})).status).toBe(200);
  });

  it('a bulk cancel that changes no run records nothing and logs no error line', async () => {
    const over = await insertRun(db.dataSource, 'acme', taskId, { state: 'SUCCEEDED', finishedAt: T0 });
    const error = vi.spyOn(Logger.prototype, 'error');
    try {
      const res = await t.http().post('/api/runs/bulk-cancel').set(acme.admin).send({ ids: [over.id, 987_654_321] });
      expect(res.status).toBe(200);
      expect(res.body.results.map((r: { status: number }) => r.status)).toEqual([409, 404]);
      expect(error.mock.calls.map(([message]) => String(message)).filter((m) => m.includes('audit record'))).toEqual([]);
    } finally {
      error.mockRestore();
    }
  });

  it('bulk-cancels: one result per id, another tenant’s id is a 404 result, a finished run a 409 result, the rest cancelled', async () => {
    const a = await insertRun(db.dataSource, 'acme', taskId, { state: 'PENDING' });
    const b = await insertRun(db.dataSource, 'acme', taskId, { state: 'RETRY_WAIT' });
    const over = await insertRun(db.dataSource, 'acme', taskId, { state: 'SUCCEEDED', finishedAt: T0 });
    const globexTask = (await t.http().post('/api/tasks').set(globex.admin).send(cronTask('theirs'))).body.id as number;
    const theirs = await insertRun(db.dataSource, 'globex', globexTask, { state: 'PENDING' });
    const res = await t.http().post('/api/runs/bulk-cancel').set(acme.admin).send({ ids: [a.id, theirs.id, over.id, b.id, a.id] });
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([
      { id: a.id, status: 200, runId: a.id, message: null },
      { id: theirs.id, status: 404, runId: null, message: expect.stringContaining('not found') },
      { id: over.id, status: 409, runId: null, message: expect.stringContaining('SUCCEEDED') },
      { id: b.id, status: 200, runId: b.id, message: null },
    ]);
    const states = await db.dataSource.getRepository(RunEntity).findBy([{ id: a.id }, { id: b.id }, { id: theirs.id }]);
    expect(Object.fromEntries(states.map((r) => [r.id, r.state]))).toEqual({ [a.id]: 'CANCELLED', [b.id]: 'CANCELLED', [theirs.id]: 'PENDING' });
  });

  it('tells the engines which cancelled runs had been sent (to abort them at their executors), once the cancel is committed', async () => {
    cancelNotices.splice(0);
    const sent = await insertRun(db.dataSource, 'acme', taskId, { state: 'ACCEPTED', dispatchedAt: T0 });
    const marked = await insertRun(db.dataSource, 'acme', taskId, { state: 'DISPATCHED', dispatchedAt: T0 });
    const waiting = await insertRun(db.dataSource, 'acme', taskId, { state: 'PENDING' });
    // Given back to PENDING by a takeover with its dispatch mark (its executor may hold it), and one whose dispatch got no answer.
    const takenOver = await insertRun(db.dataSource, 'acme', taskId, { state: 'PENDING', dispatchedAt: T0 });
    const unanswered = await insertRun(db.dataSource, 'acme', taskId, { state: 'RETRY_WAIT', executorId: 1 });
    expect((await t.http().post('/api/runs/bulk-cancel').set(acme.admin).send({ ids: [sent.id, waiting.id, marked.id, takenOver.id, unanswered.id] })).status).toBe(200);
    expect(cancelNotices).toEqual([{ tenantId: 'acme', engineGroup: 'default', runIds: [sent.id, marked.id, takenOver.id, unanswered.id] }]);
    const alone = await insertRun(db.dataSource, 'acme', taskId, { state: 'ACCEPTED', dispatchedAt: T0 });
    expect((await t.http().post(`/api/runs/${alone.id}/cancel`).set(acme.admin)).status).toBe(200);
    expect(cancelNotices[1]).toEqual({ tenantId: 'acme', engineGroup: 'default', runIds: [alone.id] });
    expect((await t.http().post(`/api/runs/${waiting.id}/cancel`).set(acme.admin)).status).toBe(409);
    expect(cancelNotices).toHaveLength(2);
  });

  it('bulk re-runs finished runs with their params, and names a bad body’s field', async () => {
    const one = await insertRun(db.dataSource, 'acme', taskId, { state: 'SUCCEEDED', params: { width: 1 }, finishedAt: T0 });
    const two = await insertRun(db.dataSource, 'acme', taskId, { state: 'PENDING' });
    const res = await t.http().post('/api/runs/bulk-rerun').set(acme.admin).send({ ids: [one.id, two.id] });
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([
      { id: one.id, status: 201, runId: expect.any(Number), message: null },
      { id: two.id, status: 409, runId: null, message: expect.any(String) },
    ]);
    const made = await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id: res.body.results[0].runId });
    expect(made).toMatchObject({ params: { width: 1 }, cause: 'MANUAL', tenantId: 'acme' });
    const empty = await t.http().post('/api/runs/bulk-rerun').set(acme.admin).send({ ids: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.errors[0].field).toBe('ids');
    // Each bad id named by its place, not "each value in ids must be …".
    const bad = await t.http().post('/api/runs/bulk-cancel').set(acme.admin).send({ ids: [one.id, '5', 0, -1, 1.5] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['ids[1]', 'ids[2]', 'ids[3]', 'ids[4]']);
    expect(bad.body.errors[0].reason).toMatch(/^must be a run id/);
  });

  it('copies a task under a new name, paused when asked, and refuses a taken name (409)', async () => {
    const res = await t.http().post(`/api/tasks/${taskId}/copy`).set(acme.admin).send({ name: 'resize-copy', paused: true });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'resize-copy', executorApp: 'images', handler: 'resize', params: { width: 10 }, paused: true, fireCount: 0 });
    expect((await t.http().post(`/api/tasks/${taskId}/copy`).set(acme.admin).send({ name: 'resize-copy' })).status).toBe(409);
    expect((await t.http().post(`/api/tasks/${taskId}/copy`).set(globex.admin).send({ name: 'x' })).status).toBe(404);
  });

  it('downloads a run’s whole log as text, every attempt', async () => {
    const run = await insertRun(db.dataSource, 'acme', taskId, { state: 'SUCCEEDED', attempt: 2, finishedAt: T0 });
    await db.dataSource.query('INSERT INTO run_logs (tenant_id, run_id, attempt, at, level, message) VALUES (?, ?, 1, ?, ?, ?), (?, ?, 2, ?, ?, ?)', [
      'acme', run.id, T0 + 1, 'error', 'first try failed', 'acme', run.id, T0 + 2, 'info', 'second try ok',
    ]);
    const res = await t.http().get(`/api/runs/${run.id}/log`).set(acme.viewer);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.headers['content-disposition']).toContain(`run-${run.id}.log`);
    expect(res.text).toBe(`2026-03-01T00:00:00.001Z ERROR [attempt 1] first try failed\n2026-03-01T00:00:00.002Z INFO  [attempt 2] second try ok\n`);
    expect((await t.http().get(`/api/runs/${run.id}/log`).set(globex.viewer)).status).toBe(404);
  });

  it('a log download holds its tenant’s heavy lane until its client leaves; another tenant’s searches do not wait', async () => {
    // A run at its cap: 5,000 lines of 8,000 characters (40 MB), more than the sockets buffer.
    const run = await insertRun(db.dataSource, 'acme', taskId, { state: 'SUCCEEDED', finishedAt: T0 });
    const message = 'x'.repeat(8_000);
    for (let i = 0; i < 10; i++) {
      await db.dataSource.query(
        `INSERT INTO run_logs (tenant_id, run_id, attempt, at, level, message) VALUES ${Array.from({ length: 500 }, () => '(?, ?, 1, ?, ?, ?)').join(', ')}`,
        Array.from({ length: 500 }, (_, j) => ['acme', run.id, T0 + i * 500 + j, 'info', message]).flat(),
      );
    }
    const base = await listenOnLoopback(t);
    const download = get(`${base}/api/runs/${run.id}/log`, { headers: acme.viewer });
    const [answer] = (await once(download, 'response')) as [IncomingMessage];
    expect(answer.statusCode).toBe(200);
    await once(answer, 'data');
    answer.pause(); // a client that stops reading: the answer stays unfinished
    const search = `/api/runs/search?q=timeout&from=${T0 - 1000}&to=${T0 + 1000}`;
    try {
      const theirs = await t.http().get(search).set(globex.viewer);
      expect(theirs.status, JSON.stringify(theirs.body)).toBe(200);
      let mineAnswered = false;
      const mine = t.http().get(search).set(acme.viewer).then((res) => ((mineAnswered = true), res));
      // In acme's lane behind the download (its two jobs: the download running, the search waiting), and not answered.
      const lane = (t.app.get(TenantHeavyWork) as unknown as { lane: { pending(tenantId: string): number } }).lane;
      await vi.waitFor(() => expect(lane.pending('acme')).toBe(2), { timeout: 10_000, interval: 10 });
      expect(mineAnswered).toBe(false);
      download.destroy(); // the client leaves: the lane is given back
      expect((await mine).status).toBe(200);
    } finally {
      download.destroy();
    }
    await db.dataSource.query('DELETE FROM run_logs WHERE run_id = ?', [run.id]);
  });

  it('a log download whose client left while it waited for the heavy lane gives the lane back', async () => {
    const run = await insertRun(db.dataSource, 'acme', taskId, { state: 'SUCCEEDED', finishedAt: T0 });
    // Its response closed before the lane was granted: its 'close' was emitted then, never again.
    const gone = Object.assign(new EventEmitter(), { closed: true }) as unknown as ServerResponse;
    const file = await t.app.get(RunsController).log('acme', run.id, gone);
    // Given back as the download began (before its first page was read), not on a 'close' that never comes.
    const lane = (t.app.get(TenantHeavyWork) as unknown as { lane: { pending(tenantId: string): number } }).lane;
    expect(lane.pending('acme')).toBe(0);
    expect(file.getStream().destroyed).toBe(true);
  });

  it('searches runs by error text and by params in a time range, newest first, tenant-scoped', async () => {
    const base = T0 - 10 * 3_600_000;
    const mine = [];
    for (let i = 0; i < 6; i++) {
      mine.push(await insertRun(db.dataSource, 'acme', taskId, { state: 'FAILED', scheduledAt: base + i * 1000, error: i % 2 ? `Error: disk 50%_full on node-${i}\n  at x` : 'timed out', params: { region: `eu-${i}` } }));
    }
    const globexTask = (await t.http().post('/api/tasks').set(globex.admin).send(cronTask('theirs-search'))).body.id as number;
    await insertRun(db.dataSource, 'globex', globexTask, { state: 'FAILED', scheduledAt: base + 500, error: 'Error: disk 50%_full on node-9' });
    const range = `from=${base}&to=${base + 6000}`;
    const res = await t.http().get(`/api/runs/search?q=${encodeURIComponent('DISK 50%_')}&${range}`).set(acme.viewer);
    expect(res.status).toBe(200);
    expect(res.body.items.map((r: { id: number }) => r.id)).toEqual([mine[5].id, mine[3].id, mine[1].id]);
    expect(res.body).toMatchObject({ nextCursor: null, searchedFrom: base });
    const byParams = await t.http().get(`/api/runs/search?q=eu-4&field=params&${range}`).set(acme.viewer);
    expect(byParams.body.items.map((r: { id: number }) => r.id)).toEqual([mine[4].id]);
    const narrow = await t.http().get(`/api/runs/search?q=disk&from=${base}&to=${base + 2000}`).set(acme.viewer);
    expect(narrow.body.items.map((r: { id: number }) => r.id)).toEqual([mine[1].id]);
    const bad = await t.http().get(`/api/runs/search?q=disk&from=${base}&to=${base}`).set(acme.viewer);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('to');
    expect((await t.http().get(`/api/runs/search?from=1&to=2`).set(acme.viewer)).body.errors[0].field).toBe('q');
  });

  it('a search call examines at most its scan budget and pages on through the range', async () => {
    const base = T0 - 20 * 3_600_000;
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await insertRun(db.dataSource, 'acme', taskId, { state: 'FAILED', scheduledAt: base + i, error: i === 0 || i === 3 ? 'needle' : 'hay' })).id);
    const seen: number[][] = [];
    let after = null;
    do {
      const page = await searchRuns(db.dataSource.manager, { tenantId: 'acme', text: 'needle', field: 'error', from: base, to: base + 5, after, scanBudget: 2, limit: 50 });
      seen.push(page.rows.map((r) => r.id));
      after = page.next;
    } while (after);
    expect(seen).toEqual([[ids[3]], [], [ids[0]]]); // slices (4, 3), (2, 1), (0)
  });

  it('lists every attempt of a run with its timeline (one order, out-of-order flagged, each end on its recorded clock) and logs; lateness is the first attempt’s', async () => {
    const scheduledAt = T0 - 60_000;
    const run = await insertRun(db.dataSource, 'acme', taskId, {
      state: 'TIMED_OUT', attempt: 2, finishedClock: 'engine', scheduledAt, dueAt: scheduledAt + 2_000, firstDispatchedAt: scheduledAt + 7,
      dispatchedAt: scheduledAt + 2_004, acceptedAt: scheduledAt + 2_009, startedAt: scheduledAt + 2_006, finishedAt: scheduledAt + 2_500,
    });
    await db.dataSource.query(
      'INSERT INTO run_attempts (tenant_id, run_id, attempt, state, executor_id, due_at, dispatched_at, accepted_at, started_at, finished_at, finished_clock, error, ended_at) VALUES (?, ?, 1, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?)',
      ['acme', run.id, 'ACCEPTED', scheduledAt, scheduledAt + 7, scheduledAt + 9, scheduledAt + 12, scheduledAt + 800, 'executor', 'Error: boom\n  at x', scheduledAt + 801],
    );
    await db.dataSource.query('INSERT INTO run_logs (tenant_id, run_id, attempt, at, level, message) VALUES (?, ?, 1, ?, ?, ?), (?, ?, 2, ?, ?, ?)', [
      'acme', run.id, scheduledAt + 20, 'error', 'one', 'acme', run.id, scheduledAt + 2_100, 'info', 'two',
    ]);
    const res = await t.http().get(`/api/runs/${run.id}/attempts`).set(acme.viewer);
    expect(res.status).toBe(200);
    const [first, second] = res.body.items;
    expect(first).toMatchObject({ attempt: 1, latest: false, state: 'ACCEPTED', dueAt: scheduledAt, error: 'Error: boom', logs: [expect.objectContaining({ message: 'one' })] });
    expect(second).toMatchObject({ attempt: 2, latest: true, state: 'TIMED_OUT', dueAt: scheduledAt + 2_000, logs: [expect.objectContaining({ message: 'two' })] });
    for (const a of [first, second]) expect(a.timeline.map((e: { step: string }) => e.step)).toEqual(['SCHEDULED', 'DISPATCHED', 'ACCEPTED', 'STARTED', 'FINISHED']);
    expect(first.timeline.some((e: { outOfOrder: boolean }) => e.outOfOrder)).toBe(false);
    expect(second.timeline.filter((e: { outOfOrder: boolean }) => e.outOfOrder).map((e: { step: string }) => e.step)).toEqual(['STARTED']);
    // Attempt 1's end its executor reported; attempt 2's the engine's timeout.
    expect([first, second].map((a) => a.timeline[4].clock)).toEqual(['executor', 'engine']);
    const listed = await t.http().get(`/api/runs/${run.id}`).set(acme.viewer);
    expect(listed.body).toMatchObject({ latenessMs: 7, firstDispatchedAt: scheduledAt + 7 });
    expect(listed.body.timeline).toEqual(second.timeline);
    expect((await t.http().get(`/api/runs/${run.id}/attempts`).set(globex.viewer)).status).toBe(404);
  });

  it('removes a DOWN executor (admin), refuses an UP one (409), another tenant’s is a 404', async () => {
    const down = await insertExecutor(db.dataSource, 'acme', 'old-app');
    await db.dataSource.query("UPDATE executors SET state = 'DOWN', stopped_at = ? WHERE id = ?", [T0, down.id]);
    const up = await insertExecutor(db.dataSource, 'acme', 'live-app');
    expect((await t.http().get(`/api/executors/${down.id}`).set(acme.viewer)).body).toMatchObject({ state: 'DOWN', stoppedAt: T0 });
    expect((await t.http().delete(`/api/executors/${down.id}`).set(acme.viewer)).status).toBe(403);
    expect((await t.http().delete(`/api/executors/${down.id}`).set(globex.admin)).status).toBe(404);
    const refused = await t.http().delete(`/api/executors/${up.id}`).set(acme.admin);
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0].field).toBe('state');
    expect((await t.http().delete(`/api/executors/${down.id}`).set(acme.admin)).status).toBe(204);
    expect((await t.http().get(`/api/executors/${down.id}`).set(acme.viewer)).status).toBe(404);
  });
});
