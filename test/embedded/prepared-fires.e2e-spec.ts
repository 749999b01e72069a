/**
 * An edit reaches the fires engines prepared ahead (BATON_LOOK_AHEAD_MS and BATON_SEND_AHEAD_MS,
 * 10 s by default), end to end in embedded mode with a real SDK executor: a fixed-rate task's
 * fires are planned, claimed and sent ahead; its params are edited; every fire due more than the
 * edit's margin (1 s) later runs with the new params, the withdrawn ones do not start (those sent
 * ahead are aborted at the executor) and their instants run again, and no instant runs twice. An
 * abort held until after the instants (holdNotices: a loaded machine, deterministically) lets the
 * executor start what it holds: those instants run once, as prepared, and are not planned again —
 * nor replayed by a resume after a pause. A task's first dependency reaches them the same way:
 * every fire of the new parent due past the margin starts the new child.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { EDIT_REACHES_FIRES_AFTER_MS } from '@baton/domain';
import { createExecutorServer, defineHandler } from '@baton/executor-sdk';
import { WITHDRAWN_BY } from '@baton/persistence';
import { demoLogins } from '../../apps/embedded/src/demo-seed';
import { CancelledRuns } from '../../apps/engine/src/wakeups/cancelled-runs';
import { startEmbedded } from '../../apps/embedded/src/start-embedded';

/** A withdrawal's error begins with its cause (WITHDRAWN_BY), and one that started says it ran as prepared. */
const EDITED = WITHDRAWN_BY.edit.split(';')[0];
const PAUSED = WITHDRAWN_BY.pause;
const RAN_AS_PREPARED = 'this instant ran as it was prepared';

interface RunRow {
  id: number;
  state: string;
  scheduledAt: number;
  error: string | null;
  parentRunId: number | null;
}

/**
 * Embedded Baton on its own SQLite file, with an SDK executor of `app` that is UP, and the demo
 * tenant's API logged in. `close` stops both.
 */
async function withExecutor(file: string, app: string, handlers: Array<ReturnType<typeof defineHandler>>) {
  const logins = demoLogins({});
  const baton = await startEmbedded({ databaseUrl: `sqlite:${file}`, host: '127.0.0.1', port: 0 }, logins);
  const executor = createExecutorServer({ tenantId: 'demo', secret: baton.demoTenant.executorSecret, engineUrls: [baton.url], app, handlers, host: '127.0.0.1', port: 0, spoolFile: false });
  await executor.start();
  const close = async () => {
    await executor.stop();
    await baton.close();
  };
  try {
    const login = await request(baton.url).post('/api/auth/login').send(logins.tenant).expect(200);
    const auth = { authorization: `Bearer ${login.body.token}` };
    const api = request(baton.url);
    await vi.waitFor(
      async () => expect((await api.get(`/api/executors?app=${app}`).set(auth).expect(200)).body.some((e: { state: string }) => e.state === 'UP'), 'the executor came UP').toBe(true),
      { timeout: 10_000, interval: 100 },
    );
    return { api, auth, close, baton };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Until `count` of the runs are sent ahead (ACCEPTED, held by the executor) with their instant more than 3 s away. */
async function sentAhead(runs: () => Promise<RunRow[]>, count: number): Promise<RunRow[]> {
  return vi.waitFor(
    async () => {
      const now = await runs();
      const ahead = now.filter((r) => r.state === 'ACCEPTED' && r.scheduledAt > Date.now() + 3_000);
      expect(ahead.length >= count, `no ${count} fires sent ahead: ${JSON.stringify(now)}`).toBe(true);
      return ahead;
    },
    { timeout: 15_000, interval: 100 },
  );
}


/**
 * Holds the console's cancel notices to the engine (in-process in embedded mode) until `release`:
 * an abort that reaches the executor after the instants of the fires it withdraws, as on a
 * loaded machine. Restored by `release`.
 */
function holdNotices(baton: { app: { get<T>(type: new (...args: never[]) => T): T } }): { release: () => void } {
  const cancelled = baton.app.get(CancelledRuns);
  const original = cancelled.abort.bind(cancelled);
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  cancelled.abort = async (tenantId, runIds) => {
    await gate;
    return original(tenantId, runIds);
  };
  return {
    release: () => {
      cancelled.abort = original;
      open();
    },
  };
}

/** Until each of these withdrawn runs has started at the executor and its withdrawal says it ran as prepared; the runs then. */
async function ranAsPrepared(runs: () => Promise<RunRow[]>, ids: readonly number[], started: () => readonly number[]): Promise<RunRow[]> {
  return vi.waitFor(
    async () => {
      const now = await runs();
      const unsettled = ids.filter((id) => !started().includes(id) || !now.find((r) => r.id === id)?.error?.includes(RAN_AS_PREPARED));
      expect(unsettled, JSON.stringify(now.map((r) => [r.id, r.state, r.scheduledAt, r.error]))).toEqual([]);
      return now;
    },
    { timeout: 20_000, interval: 200 },
  );
}

describe('prepared fires follow an edit (embedded, defaults)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-prepared-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs every fire due after the edit’s margin with the new params, a withdrawn one only if its abort came late (then not planned again), no instant twice', async () => {
    const started: Array<{ runId: number; params: unknown }> = [];
    const { api, auth, close } = await withExecutor(join(dir, 'baton.sqlite'), 'edits', [defineHandler('echo', (ctx) => void started.push({ runId: ctx.runId, params: ctx.params }))]);
    try {
      const task = (await api.post('/api/tasks').set(auth).send({ name: 'edited', executorApp: 'edits', handler: 'echo', trigger: { kind: 'FIXED_RATE', intervalMs: 1_000 }, params: { v: 1 } }).expect(201)).body;
      const runs = async (): Promise<RunRow[]> => (await api.get(`/api/runs?taskId=${task.id}&limit=200`).set(auth).expect(200)).body.items;

      // Fires prepared ahead: some already sent (ACCEPTED) to the executor, which holds them until their instant.
      const sent = await sentAhead(runs, 3);
      const version = (await api.get(`/api/tasks/${task.id}`).set(auth).expect(200)).body.version;
      await api.patch(`/api/tasks/${task.id}`).set(auth).send({ version, params: { v: 2 } }).expect(200);
      // Measured from the answer: the edit was saved by then (on a loaded machine, well after the request left).
      const editedAt = Date.now();
      // Until every withdrawn instant has passed — a fire after the last of them started (the
      // executor starts the runs it holds at their instants) — and three fires past the margin started.
      const all = await vi.waitFor(
        async () => {
          const now = await runs();
          const startedAt = started.map((s) => now.find((r) => r.id === s.runId)?.scheduledAt ?? 0);
          const lastWithdrawn = Math.max(...now.filter((r) => r.error?.startsWith(EDITED)).map((r) => r.scheduledAt));
          const pastMargin = startedAt.filter((at) => at > editedAt + EDIT_REACHES_FIRES_AFTER_MS);
          expect(Number.isFinite(lastWithdrawn) && startedAt.some((at) => at > lastWithdrawn) && pastMargin.length >= 3, JSON.stringify(now.map((r) => [r.id, r.state, r.scheduledAt - editedAt, r.error]))).toBe(true);
          return now;
        },
        { timeout: 30_000, interval: 200 },
      );
      const byId = new Map(all.map((r) => [r.id, r]));
      const withdrawn = all.filter((r) => r.error?.startsWith(EDITED));
      expect(withdrawn.map((r) => r.id)).toEqual(expect.arrayContaining(sent.map((r) => r.id)));
      const startedIds = new Set(started.map((s) => s.runId));
      const instants = started.map((s) => byId.get(s.runId)!.scheduledAt);
      expect(new Set(instants).size, 'an instant ran twice').toBe(instants.length);
      // A withdrawn fire either never started, and its instant was planned again as the task now says,
      // or — its abort late for the instant on a loaded machine — it started, says so, and its instant was not planned again.
      for (const r of withdrawn) {
        const others = all.filter((x) => x.scheduledAt === r.scheduledAt && x.id !== r.id);
        if (startedIds.has(r.id)) {
          expect(r.error, `withdrawn run ${r.id} started`).toContain(RAN_AS_PREPARED);
          expect(others, `instant ${r.scheduledAt} planned again though it ran`).toEqual([]);
        } else {
          expect(others.length, `instant ${r.scheduledAt} planned again`).toBe(1);
        }
      }
      const after = started.filter((s) => byId.get(s.runId)!.scheduledAt > editedAt + EDIT_REACHES_FIRES_AFTER_MS && !withdrawn.some((w) => w.id === s.runId));
      expect(after.length).toBeGreaterThanOrEqual(3);
      for (const s of after) expect(s.params).toEqual({ v: 2 });
    } finally {
      await close();
    }
  }, 60_000);

  it('starts the new child after every fire of a task made a parent that is due past the margin, those sent ahead before the edge included', async () => {
    const { api, auth, close } = await withExecutor(join(dir, 'parent.sqlite'), 'flows', [defineHandler('feed', () => undefined), defineHandler('fed', () => undefined)]);
    try {
      const parent = (await api.post('/api/tasks').set(auth).send({ name: 'feeds', executorApp: 'flows', handler: 'feed', trigger: { kind: 'FIXED_RATE', intervalMs: 1_000 } }).expect(201)).body;
      const child = (await api.post('/api/tasks').set(auth).send({ name: 'fed', executorApp: 'flows', handler: 'fed', trigger: { kind: 'MANUAL' } }).expect(201)).body;
      const runsOf = async (taskId: number): Promise<RunRow[]> => (await api.get(`/api/runs?taskId=${taskId}&limit=200`).set(auth).expect(200)).body.items;
      // Fires of the task-to-be-parent sent ahead, claimed when it had no child.
      await sentAhead(() => runsOf(parent.id), 3);
      await api.post('/api/dependencies').set(auth).send({ parentTaskId: parent.id, childTaskId: child.id }).expect(201);
      const linkedAt = Date.now();
      // Until five parent fires past the margin have succeeded: each one's child run exists.
      await vi.waitFor(
        async () => {
          const parents = (await runsOf(parent.id)).filter((r) => r.state === 'SUCCEEDED' && r.scheduledAt > linkedAt + EDIT_REACHES_FIRES_AFTER_MS);
          const children = new Set((await runsOf(child.id)).map((r) => r.parentRunId));
          const orphans = parents.filter((r) => !children.has(r.id)).map((r) => [r.id, r.scheduledAt - linkedAt]);
          expect(parents.length >= 5 && orphans.length === 0, `${parents.length} parent fires past the margin; without a child: ${JSON.stringify(orphans)}`).toBe(true);
        },
        { timeout: 30_000, interval: 200 },
      );
      expect((await runsOf(parent.id)).some((r) => r.error === WITHDRAWN_BY.dependency)).toBe(true);
    } finally {
      await close();
    }
  }, 60_000);

  it('a withdrawn fire its executor started before the late abort runs its instant once: not planned again, its error says so', async () => {
    const started: Array<{ runId: number; params: unknown }> = [];
    const { api, auth, close, baton } = await withExecutor(join(dir, 'late.sqlite'), 'late', [defineHandler('echo', (ctx) => void started.push({ runId: ctx.runId, params: ctx.params }))]);
    try {
      const task = (await api.post('/api/tasks').set(auth).send({ name: 'late-notice', executorApp: 'late', handler: 'echo', trigger: { kind: 'FIXED_RATE', intervalMs: 1_000 }, params: { v: 1 } }).expect(201)).body;
      const runs = async (): Promise<RunRow[]> => (await api.get(`/api/runs?taskId=${task.id}&limit=200`).set(auth).expect(200)).body.items;
      const sent = await sentAhead(runs, 3);
      const notices = holdNotices(baton);
      try {
        const version = (await api.get(`/api/tasks/${task.id}`).set(auth).expect(200)).body.version;
        await api.patch(`/api/tasks/${task.id}`).set(auth).send({ version, params: { v: 2 } }).expect(200);
        // The executor starts the fires it holds at their instants: the aborts come too late.
        await ranAsPrepared(runs, sent.map((r) => r.id), () => started.map((s) => s.runId));
      } finally {
        notices.release();
      }
      // Fires after the sent ones run with the new params: the planner has passed every withdrawn instant.
      const lastSent = Math.max(...sent.map((r) => r.scheduledAt));
      const all = await vi.waitFor(
        async () => {
          const now = await runs();
          const later = started.filter((s) => (now.find((r) => r.id === s.runId)?.scheduledAt ?? 0) > lastSent + 2_000);
          expect(later.length >= 2, JSON.stringify(now.map((r) => [r.id, r.state, r.scheduledAt, r.error]))).toBe(true);
          return now;
        },
        { timeout: 20_000, interval: 200 },
      );
      for (const r of sent) {
        expect(all.filter((x) => x.scheduledAt === r.scheduledAt).map((x) => x.id), `instant ${r.scheduledAt} planned again though it ran`).toEqual([r.id]);
        expect(started.filter((s) => s.runId === r.id)).toEqual([{ runId: r.id, params: { v: 1 } }]);
      }
      const instants = started.map((s) => all.find((r) => r.id === s.runId)!.scheduledAt);
      expect(new Set(instants).size, 'an instant ran twice').toBe(instants.length);
    } finally {
      await close();
    }
  }, 60_000);

  it('a pause whose abort comes after the instants: the resume does not replay the instants that ran', async () => {
    const started: number[] = [];
    const { api, auth, close, baton } = await withExecutor(join(dir, 'paused.sqlite'), 'pauses', [defineHandler('echo', (ctx) => void started.push(ctx.runId))]);
    try {
      const task = (await api.post('/api/tasks').set(auth).send({ name: 'late-pause', executorApp: 'pauses', handler: 'echo', trigger: { kind: 'FIXED_RATE', intervalMs: 1_000 } }).expect(201)).body;
      const runs = async (): Promise<RunRow[]> => (await api.get(`/api/runs?taskId=${task.id}&limit=200`).set(auth).expect(200)).body.items;
      const sent = await sentAhead(runs, 3);
      const notices = holdNotices(baton);
      try {
        await api.post(`/api/tasks/${task.id}/pause`).set(auth).expect(200);
        await ranAsPrepared(runs, sent.map((r) => r.id), () => started);
      } finally {
        notices.release();
      }
      const pausedRuns = await runs();
      for (const r of sent) expect(pausedRuns.find((x) => x.id === r.id)?.error).toContain(PAUSED);
      await api.post(`/api/tasks/${task.id}/resume`).set(auth).expect(200);
      // Until the resumed task has fired twice after the last instant sent.
      const lastSent = Math.max(...sent.map((r) => r.scheduledAt));
      const all = await vi.waitFor(
        async () => {
          const now = await runs();
          expect(now.filter((r) => r.state === 'SUCCEEDED' && r.scheduledAt > lastSent).length >= 2, JSON.stringify(now.map((r) => [r.id, r.state, r.scheduledAt, r.error]))).toBe(true);
          return now;
        },
        { timeout: 20_000, interval: 200 },
      );
      for (const r of sent) expect(all.filter((x) => x.scheduledAt === r.scheduledAt).map((x) => x.id), `instant ${r.scheduledAt} replayed though it ran`).toEqual([r.id]);
      const instants = started.map((id) => all.find((r) => r.id === id)!.scheduledAt);
      expect(new Set(instants).size, 'an instant ran twice').toBe(instants.length);
    } finally {
      await close();
    }
  }, 60_000);
});
