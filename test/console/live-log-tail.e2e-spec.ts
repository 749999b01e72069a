/**
 * The live log tail over socket.io: a page watches a run of its tenant and gets the lines
 * written after the newest one it has, each once; a run of another tenant cannot be watched.
 */
import type { AddressInfo } from 'node:net';
import { io as connect, type Socket as ClientSocket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RunLogTail, RUN_LOGS_EVENT } from '../../apps/console/src/live/run-log-tail';
import { useTestDatabase } from '../support/databases';
import { insertRun, insertRunLog, seedTenant, startConsole, type ConsoleTestApp, type SeededTenant } from './console-test-kit';

describe('live log tail', () => {
  const db = useTestDatabase('sqlite');
  let t: ConsoleTestApp;
  let acme: SeededTenant;
  let beta: SeededTenant;
  let url: string;
  const sockets: ClientSocket[] = [];

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    acme = await seedTenant(t, db.dataSource, 'acme');
    beta = await seedTenant(t, db.dataSource, 'beta');
    const server = t.app.getHttpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const s of sockets) s.disconnect();
    await t?.close();
  });

  const open = async (token: string): Promise<ClientSocket> => {
    const socket = connect(url, { auth: { token: token.replace(/^Bearer /, '') }, transports: ['websocket'], reconnection: false, forceNew: true });
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    return socket;
  };

  it('pushes the lines written after the ones the page has, each once, to the watching socket only', async () => {
    const run = await insertRun(db.dataSource, 'acme', 1, { state: 'ACCEPTED' });
    await insertRunLog(db.dataSource, run, 'before the page loaded');
    const [{ id: loaded }] = (await db.dataSource.query(`SELECT MAX(id) AS id FROM run_logs WHERE run_id = ?`, [run.id])) as Array<{ id: number }>;
    const watcher = await open(acme.admin.Authorization);
    const bystander = await open(acme.viewer.Authorization);
    const got: string[] = [];
    const seenByBystander: string[] = [];
    watcher.on(RUN_LOGS_EVENT, (e: { runId: number; lines: Array<{ message: string }> }) => got.push(...e.lines.map((l) => `${e.runId}:${l.message}`)));
    bystander.on(RUN_LOGS_EVENT, (e: { runId: number; lines: Array<{ message: string }> }) => seenByBystander.push(...e.lines.map((l) => `${e.runId}:${l.message}`)));
    expect(await watcher.timeout(30_000).emitWithAck('run:logs:watch', { runId: run.id, afterId: Number(loaded) })).toEqual({ ok: true });
    await insertRunLog(db.dataSource, run, 'step 1');
    await insertRunLog(db.dataSource, run, 'step 2');
    const tail = t.app.get(RunLogTail);
    await tail.poll();
    await tail.poll();
    await vi.waitFor(() => expect(got).toEqual([`${run.id}:step 1`, `${run.id}:step 2`]), { timeout: 10_000, interval: 10 });
    // A fence: the bystander watches a run of its own and gets its line, pushed by a later poll —
    // a line of the other run pushed to it would have come first.
    const fenceRun = await insertRun(db.dataSource, 'acme', 1, { state: 'ACCEPTED' });
    expect(await bystander.timeout(30_000).emitWithAck('run:logs:watch', { runId: fenceRun.id })).toEqual({ ok: true });
    await insertRunLog(db.dataSource, fenceRun, 'fence 1');
    await tail.poll();
    await vi.waitFor(() => expect(seenByBystander).toContain(`${fenceRun.id}:fence 1`), { timeout: 10_000, interval: 10 });
    expect(seenByBystander).toEqual([`${fenceRun.id}:fence 1`]);

    watcher.emit('run:logs:unwatch', { runId: run.id });
    // A socket's events are handled in order: this watch's answer comes after the unwatch was.
    expect(await watcher.timeout(30_000).emitWithAck('run:logs:watch', { runId: fenceRun.id })).toEqual({ ok: true });
    await insertRunLog(db.dataSource, run, 'step 3');
    await tail.poll();
    await insertRunLog(db.dataSource, fenceRun, 'fence 2');
    await tail.poll();
    await vi.waitFor(() => expect(got).toContain(`${fenceRun.id}:fence 2`), { timeout: 10_000, interval: 10 });
    expect(got.filter((line) => line.startsWith(`${run.id}:`))).toEqual([`${run.id}:step 1`, `${run.id}:step 2`]);
  });

  it("refuses another tenant's run and bad input, naming the field", async () => {
    const foreign = await insertRun(db.dataSource, 'beta', 2, { state: 'ACCEPTED' });
    const socket = await open(acme.admin.Authorization);
    expect(await socket.timeout(30_000).emitWithAck('run:logs:watch', { runId: foreign.id })).toEqual({ ok: false, statusCode: 404, message: `Run ${foreign.id} not found` });
    expect(await socket.timeout(30_000).emitWithAck('run:logs:watch', { runId: 'x' })).toMatchObject({ ok: false, statusCode: 400, message: expect.stringMatching(/^runId:/) });
    expect(await socket.timeout(30_000).emitWithAck('run:logs:watch', { runId: foreign.id, afterId: -1 })).toMatchObject({ ok: false, statusCode: 400, message: expect.stringMatching(/^afterId:/) });
    const own = await open(beta.admin.Authorization);
    expect(await own.timeout(30_000).emitWithAck('run:logs:watch', { runId: foreign.id })).toEqual({ ok: true });
  });
});
