/**
 * Executor secret rotation with a real engine and a real SDK executor: the executor keeps
 * working through a rotation on the previous secret (heartbeats, dispatches, callbacks), is
 * restarted with the new secret on the same address, and no run is lost — a run in flight across
 * the restart ends SUCCEEDED, as does every run before, during and after.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createExecutorServer, defineHandler, type ExecutorServer } from '@baton/executor-sdk';
import { demoLogins } from '../../apps/embedded/src/demo-seed';
import { startEmbedded, type EmbeddedBaton } from '../../apps/embedded/src/start-embedded';

const APP = 'rotating';

describe('executor secret rotation (embedded engine, SDK executor)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-rotation-'));
  const logins = demoLogins({});
  let baton: EmbeddedBaton;
  let auth: { authorization: string };
  let taskId: number;
  let slowTaskId: number;
  /** Which executor process ran which run. */
  const ranBy = new Map<number, string>();
  /** The slow run stays in flight until the test lets it end (once its executor is draining). */
  let letSlowEnd: () => void = () => undefined;
  const slowMayEnd = new Promise<void>((resolve) => (letSlowEnd = resolve));

  const executor = (name: string, secret: string, port: number): ExecutorServer =>
    createExecutorServer({
      tenantId: baton.demoTenant.id,
      secret,
      app: APP,
      engineUrls: [baton.engineUrl],
      host: '127.0.0.1',
      port,
      spoolFile: false,
      handlers: [
        defineHandler('quick', (ctx) => void ranBy.set(ctx.runId, name)),
        defineHandler('slow', async (ctx) => {
          ranBy.set(ctx.runId, name);
          await slowMayEnd;
        }),
      ],
    });
  const api = () => request(baton.url);
  const trigger = async (id: number): Promise<number> => (await api().post(`/api/tasks/${id}/trigger`).set(auth).send({}).expect(201)).body.id;
  /** The condition decides; the timeout only bounds a hang (vi.waitFor's default, 1 s, is a guess a loaded machine can miss). */
  const HANG = { timeout: 30_000, interval: 100 };
  /** The run's state once it has ended. */
  const ended = (runId: number): Promise<string> =>
    vi.waitFor(async () => {
      const { state } = (await api().get(`/api/runs/${runId}`).set(auth).expect(200)).body as { state: string };
      if (!['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED'].includes(state)) throw new Error(`run ${runId} still ${state}`);
      return state;
    }, HANG);
  async function secretStatus(): Promise<string[]> {
    const list = (await api().get(`/api/executors?app=${APP}&state=UP`).set(auth).expect(200)).body as Array<{ secret: string }>;
    return list.map((e) => e.secret);
  }
  const until = <T>(check: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> =>
    vi.waitFor(async () => {
      const value = await check();
      if (!ok(value)) throw new Error(`waiting for ${what}: ${JSON.stringify(value)}`);
      return value;
    }, HANG);

  beforeAll(async () => {
    baton = await startEmbedded({ databaseUrl: `sqlite:${join(dir, 'baton.sqlite')}`, host: '127.0.0.1', port: 0 }, logins);
    auth = { authorization: `Bearer ${(await api().post('/api/auth/login').send(logins.tenant).expect(200)).body.token}` };
    const task = (name: string, handler: string) => ({ name, executorApp: APP, handler, params: {}, trigger: { kind: 'MANUAL' }, retry: { maxAttempts: 1 } });
    taskId = (await api().post('/api/tasks').set(auth).send(task('rotation-quick', 'quick')).expect(201)).body.id;
    slowTaskId = (await api().post('/api/tasks').set(auth).send(task('rotation-slow', 'slow')).expect(201)).body.id;
  }, 60_000);
  afterAll(async () => {
    await baton?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps running on the previous secret through the window, then on the new one after a restart, losing no run', async () => {
    const oldSecret = baton.demoTenant.executorSecret;
    const first = executor('first', oldSecret, 0);
    const url = new URL(await first.start());
    await until(secretStatus, (s) => s.length === 1, 'the executor to register');
    const before = await Promise.all([trigger(taskId), trigger(taskId)]);

    const rotated = await api().post('/api/executors/secret/rotate').set(auth).send({ overlapSeconds: 3600 }).expect(200);
    const newSecret = rotated.body.executorSecret as string;
    expect(newSecret).not.toBe(oldSecret);
    // In the window the old secret still works: heartbeats (shown as PREVIOUS), dispatches, callbacks.
    await until(secretStatus, (s) => s.join() === 'PREVIOUS', 'a heartbeat on the previous secret');
    const during = await Promise.all([trigger(taskId), trigger(taskId)]);
    for (const run of [...before, ...during]) expect(await ended(run)).toBe('SUCCEEDED');
    const inFlight = await trigger(slowTaskId);
    await until(async () => ranBy.get(inFlight), (by) => by === 'first', 'the slow run to start');

    // Restart with the new secret on the same address: the slow run finishes while stopping and
    // its callback (old secret, still valid) is accepted.
    first.events.once('draining', () => letSlowEnd());
    await first.stop();
    const second = executor('second', newSecret, Number(url.port));
    await second.start();
    const after = await Promise.all([trigger(taskId), trigger(taskId), trigger(taskId)]);
    for (const run of after) expect(await ended(run)).toBe('SUCCEEDED');
    expect(await ended(inFlight)).toBe('SUCCEEDED');
    expect(after.map((run) => ranBy.get(run))).toEqual(['second', 'second', 'second']);
    await until(secretStatus, (s) => s.join() === 'CURRENT', 'a heartbeat on the new secret');
    await second.stop();

    const failed = (await api().get('/api/runs?state=FAILED').set(auth).expect(200)).body.items as Array<{ taskName: string }>;
    expect(failed.filter((r) => r.taskName.startsWith('rotation-'))).toEqual([]);
  });
});
