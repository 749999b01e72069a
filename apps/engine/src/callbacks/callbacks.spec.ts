import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { MAX_ALARMS_PER_CALLBACK, PATHS, type RunCallback } from '@baton/protocol';
import { firstAttemptLateness, retryWait } from '@baton/domain';
import { appendRunLogs, findRunsForCallback, inTransaction, readEndedRuns, RunEntity, WITHDRAWN_BY } from '@baton/persistence';
import {
  alarms,
  claimedRunOf,
  readRun,
  runsOfTask,
  seedExecutor,
  seedRun,
  seedTask,
  seedTenant,
  signedPost,
  startDispatchSide,
  NODE_ID,
  SECRET,
  TENANT,
  type DispatchSideApp,
  type SeededTask,
} from '../testing/dispatch-side-kit';
import { Alarms } from '../alarms/alarms';
import { DispatchMarks } from '../runs/dispatch-marks';
import { HeldAttempts } from '../runs/held-attempts';
import { MAX_CONSECUTIVE_HAND_BACKS, RunOutcomes } from '../runs/run-outcomes';
import { MAX_LOG_LINES_PER_RUN } from './callback-body';
import { CallbacksService } from './callbacks.service';

describe.each(TEST_DATABASES)('callback API on %s', (kind) => {
  const db = useTestDatabase(kind);
  let engine: DispatchSideApp;
  let executorId: number;

  beforeAll(async () => {
    engine = await startDispatchSide(db.dataSource);
  });
  afterAll(() => engine?.close());
  beforeEach(async () => {
    await db.clear();
    await seedTenant(db.dataSource);
    executorId = await seedExecutor(db.dataSource, { url: 'http://127.0.0.1:9' });
  });

  const post = (payload: unknown, options: Parameters<typeof signedPost>[3] = {}) => signedPost(engine.url, PATHS.callback, payload, options);

  /** A run an executor has accepted (as the dispatcher leaves it). */
  async function acceptedRun(task: SeededTask, more: Parameters<typeof seedRun>[2] = {}): Promise<number> {
    const now = Date.now();
    return seedRun(db.dataSource, task, { state: 'ACCEPTED', claimedBy: NODE_ID, executorId, dispatchedAt: now, acceptedAt: now, deadlineAt: now + 60_000, ...more });
  }

  function success(runId: number, attempt = 1, more: Partial<RunCallback> = {}): RunCallback {
    return { runId, attempt, tenantId: TENANT, executorId, outcome: 'SUCCEEDED', result: { charged: 5 }, startedAt: Date.now() - 20, finishedAt: Date.now(), ...more };
  }

  /** The run's log lines, oldest first: [attempt, level, message]. */
  async function linesOf(runId: number): Promise<Array<[number, string, string]>> {
    const rows = (await db.dataSource.query('SELECT attempt, level, message FROM run_logs WHERE run_id = ? ORDER BY id', [runId])) as Array<{ attempt: number | string; level: string; message: string }>;
    return rows.map((l) => [Number(l.attempt), l.level, l.message]);
  }

  function failure(runId: number, attempt = 1, error = 'card declined'): RunCallback {
    return { runId, attempt, tenantId: TENANT, outcome: 'FAILED', error, startedAt: Date.now() - 20, finishedAt: Date.now() };
  }

  it('a signed success → 200, SUCCEEDED with result, timings and log lines', async () => {
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const runId = await acceptedRun(task);
    const cb = success(runId, 1, { logs: [{ at: Date.now(), level: 'info', message: 'charging' }, { at: Date.now(), level: 'warn', message: 'slow bank' }] });
    const res = await post(cb);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ accepted: true, runId, attempt: 1, state: 'SUCCEEDED' });
    const run = await readRun(db.dataSource, runId);
    expect(run).toMatchObject({ state: 'SUCCEEDED', result: { charged: 5 }, startedAt: cb.startedAt, finishedAt: cb.finishedAt, finishedClock: 'executor', deadlineAt: null, error: null });
    const logs = (await db.dataSource.query('SELECT level, message, attempt FROM run_logs WHERE run_id = ? ORDER BY id', [runId])) as unknown[];
    expect(logs).toEqual([
      { level: 'info', message: 'charging', attempt: 1 },
      { level: 'warn', message: 'slow bank', attempt: 1 },
    ]);
    expect(await alarms(db.dataSource)).toEqual([]);
  });

  it('successes arriving together end together (one update): each run once, a duplicate among them → 409, each one its own result and log lines', async () => {
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) ids.push(await acceptedRun(task, { scheduledAt: Date.now() + i }));
    const late = await acceptedRun(task, { scheduledAt: Date.now() + 10, attempt: 2 });
    const callbacks = [
      ...ids.map((runId, i) => success(runId, 1, { result: { n: i }, logs: [{ at: Date.now(), level: 'info', message: `line ${i}` }] })),
      success(ids[2], 1, { result: { n: 'again' } }),
      success(late, 1),
    ];
    const answers = await Promise.all(callbacks.map((cb) => post(cb)));
    const statuses = answers.map((a) => a.status);
    // The two callbacks of ids[2] race: exactly one is taken, whichever came first.
    const firstWon = statuses[2] === 200;
    expect(statuses).toEqual([200, 200, firstWon ? 200 : 409, 200, 200, 200, firstWon ? 409 : 200, 409]);
    for (const [i, runId] of ids.entries()) {
      const run = await readRun(db.dataSource, runId);
      expect(run.state).toBe('SUCCEEDED');
      expect(run.result).toEqual({ n: i === 2 && !firstWon ? 'again' : i });
    }
    expect((await readRun(db.dataSource, late)).state).toBe('ACCEPTED');
    const lines = (await db.dataSource.query(`SELECT message FROM run_logs WHERE run_id IN (${ids.map(() => '?').join(',')}) ORDER BY run_id`, ids)) as Array<{ message: string }>;
    expect(lines.map((l) => l.message)).toEqual(ids.map((_, i) => `line ${i}`).filter((_, i) => i !== 2 || firstWon));
  });

  // MySQL: on SQLite the watchdog's write below would share the batch's transaction (one connection) and be rolled back with it.
  it.runIf(kind === 'mysql')('bare successes end together the optimistic way; a run ended between their read and their write → 409 for it, 200 for the others', async () => {
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) ids.push(await acceptedRun(task, { scheduledAt: Date.now() + i }));
    const real = RunOutcomes.prototype.endSucceededTogether;
    const together = vi.spyOn(RunOutcomes.prototype, 'endSucceededTogether');
    together.mockImplementationOnce(async function (this: RunOutcomes, ...args: Parameters<RunOutcomes['endSucceededTogether']>) {
      await db.dataSource.query(`UPDATE runs SET state = 'TIMED_OUT', deadline_at = NULL WHERE id = ?`, [ids[4]]); // the watchdog, on its own connection
      return real.apply(this, args);
    });
    try {
      const res = await signedPost(engine.url, PATHS.callbackBatch, { callbacks: [...ids.map((runId, i) => success(runId, 1, { result: { n: i } })), success(ids[1], 1)] });
      expect(res.status).toBe(200);
      expect((res.body as { results: Array<{ status: number }> }).results.map((r) => r.status)).toEqual([200, 200, 200, 200, 409, 200, 409]);
      expect(together.mock.calls.map((c) => c[2].expectAll)).toEqual([true, false]); // refused as a whole, then asked with the locking read
    } finally {
      together.mockRestore();
    }
    for (const [i, runId] of ids.entries()) expect(await readRun(db.dataSource, runId)).toMatchObject(i === 4 ? { state: 'TIMED_OUT', result: null } : { state: 'SUCCEEDED', result: { n: i } });
  });

  it("observes each final callback's lag (receipt − its finishedAt) in baton_engine_callback_lag_seconds, a finishedAt ahead of the engine's clock as 0", async () => {
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const lag = async () => {
      const values = (await engine.metrics.callbackLag.get()).values;
      const of = (suffix: string) => values.find((v) => v.metricName === `baton_engine_callback_lag_seconds${suffix}`)?.value ?? 0;
      return { count: of('_count'), sum: of('_sum'), zero: values.find((v) => v.metricName?.endsWith('_bucket') && v.labels.le === 0.005)?.value ?? 0 };
    };
    const before = await lag();
    const spooled = await acceptedRun(task);
    // Bounds from the instants around the request, not a guessed duration: the lag is the receipt
    // minus finishedAt (30 s before sending), so within 30 s plus the request's own time; the run's
    // whole age (an hour) or a clock in ms would be far outside.
    const sentAt = Date.now();
    expect((await post(success(spooled, 1, { startedAt: sentAt - 3_600_000, finishedAt: sentAt - 30_000 }))).status).toBe(200);
    const answeredAt = Date.now();
    const after = await lag();
    expect(after.count - before.count).toBe(1);
    expect(after.sum - before.sum).toBeGreaterThanOrEqual(30);
    expect(after.sum - before.sum).toBeLessThanOrEqual(30 + (answeredAt - sentAt) / 1000);
    const ahead = await acceptedRun(task);
    expect((await post(success(ahead, 1, { finishedAt: Date.now() + 1_000 }))).status).toBe(200);
    const last = await lag();
    expect([last.count - after.count, last.sum - after.sum, last.zero - after.zero]).toEqual([1, 0, 1]);
  });

  it('a callback that overtakes the ack (run still DISPATCHED) is taken', async () => {
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const runId = await seedRun(db.dataSource, task, { state: 'DISPATCHED', executorId, dispatchedAt: Date.now() });
    expect((await post(success(runId))).status).toBe(200);
    expect((await readRun(db.dataSource, runId)).state).toBe('SUCCEEDED');
  });

  /** The run lookups the callbacks made (their reads of runs): spied on the service's coalescer. */
  function lookups(): { count: () => number; restore: () => void } {
    const coalescer = (engine.get(CallbacksService) as unknown as { lookups: { push: (...args: unknown[]) => unknown } }).lookups;
    const spy = vi.spyOn(coalescer, 'push');
    return { count: () => spy.mock.calls.length, restore: () => spy.mockRestore() };
  }

  it('ends an attempt this engine sent from what it sent, without reading the run; a second callback of it reads the run → 409', async () => {
    const task = await seedTask(db.dataSource, { name: 'charge-sent' });
    const runId = await acceptedRun(task);
    engine.get(HeldAttempts).hold(claimedRunOf(task, runId), { executorId, url: 'http://127.0.0.1:9' }, Date.now());
    const read = lookups();
    try {
      expect((await post(success(runId))).status).toBe(200);
      expect(read.count()).toBe(0);
      expect(await readRun(db.dataSource, runId)).toMatchObject({ state: 'SUCCEEDED', result: { charged: 5 } });
      expect((await post(success(runId))).body).toMatchObject({ accepted: false, reason: 'STALE', state: 'SUCCEEDED' });
      expect(read.count()).toBe(1);
    } finally {
      read.restore();
    }
  });

  it("counts a failing task's retries into one RETRYING alarm from the task settings its attempt carries, without reading the task again", async () => {
    const task = await seedTask(db.dataSource, { name: 'charge-storm', retryMaxAttempts: 3, retryBackoffBaseMs: 60_000, alarmSilenceMs: 60_000 });
    const [sent, read] = [await acceptedRun(task), await acceptedRun(task)];
    // One attempt this engine sent (what it held carries the task's alarm settings), one it did not (read with its run).
    engine.get(HeldAttempts).hold(claimedRunOf(task, sent, { alarmTypes: null, alarmSilenceMs: 60_000 }), { executorId, url: 'http://127.0.0.1:9' }, Date.now());
    const statements = vi.spyOn(db.dataSource.logger, 'logQuery');
    try {
      for (const runId of [sent, read]) expect((await post(failure(runId))).body).toMatchObject({ accepted: true, state: 'RETRY_WAIT' });
      await engine.get(Alarms).countsWritten();
      expect(statements.mock.calls.map(([sql]) => sql).filter((sql) => /FROM tasks WHERE id = \?/.test(sql))).toEqual([]);
    } finally {
      statements.mockRestore();
    }
    expect((await alarms(db.dataSource, 'RETRYING')).map((a) => [a.runId, a.count])).toEqual([[sent, 2]]);
  });

  it.each([
    ['cancelled since it was sent', { state: 'CANCELLED' }, 'CANCELLED'],
    ['timed out since it was sent', { state: 'TIMED_OUT' }, 'TIMED_OUT'],
  ] as const)('judges a callback of an attempt this engine sent but that was %s from a fresh read: 409 naming the state, the run unchanged', async (_, change, state) => {
    const task = await seedTask(db.dataSource, { name: 'charge-moved' });
    const runId = await acceptedRun(task);
    engine.get(HeldAttempts).hold(claimedRunOf(task, runId), { executorId, url: 'http://127.0.0.1:9' }, Date.now());
    await db.dataSource.query('UPDATE runs SET state = ?, deadline_at = NULL WHERE id = ?', [change.state, runId]);
    const read = lookups();
    try {
      expect((await post(failure(runId))).body).toMatchObject({ accepted: false, reason: 'STALE', state });
      expect(read.count()).toBe(1);
    } finally {
      read.restore();
    }
    expect(await readRun(db.dataSource, runId)).toMatchObject({ state, error: null });
  });

  it.each([
    ['success', 'SUCCEEDED'],
    ['failure with attempts left', 'RETRY_WAIT'],
  ] as const)('a %s whose 202 the engine still holds (BATON_ACK_HOLD_MS) writes its Accepted time with the outcome; no ACCEPTED mark follows', async (_, state) => {
    const task = await seedTask(db.dataSource, { name: 'charge-held', retryMaxAttempts: 3, retryBackoffBaseMs: 60_000 });
    const sentAt = Date.now() - 40;
    const runId = await seedRun(db.dataSource, task, { state: 'DISPATCHED', claimedBy: NODE_ID, executorId, dispatchedAt: sentAt - 2, deadlineAt: sentAt + 60_000 });
    const marks = engine.get(DispatchMarks);
    const mark = marks.markAccepted(claimedRunOf(task, runId), sentAt, sentAt + 3);
    expect((await post(state === 'SUCCEEDED' ? success(runId) : failure(runId))).status).toBe(200);
    await mark; // answered by the outcome, not by the end of the hold
    expect(marks.heldAck(runId, 1)).toBeNull();
    const times = async (sql: string) => {
      const [row] = await db.dataSource.query(sql, [runId]);
      return { dispatched: Number(row.dispatched_at), accepted: Number(row.accepted_at) };
    };
    if (state === 'SUCCEEDED') {
      expect(await readRun(db.dataSource, runId)).toMatchObject({ state: 'SUCCEEDED' });
      expect(await times('SELECT dispatched_at, accepted_at FROM runs WHERE id = ?')).toEqual({ dispatched: sentAt, accepted: sentAt + 3 });
    } else {
      expect(await readRun(db.dataSource, runId)).toMatchObject({ state: 'RETRY_WAIT', attempt: 2 });
      expect(await times('SELECT dispatched_at, accepted_at FROM run_attempts WHERE run_id = ?')).toEqual({ dispatched: sentAt, accepted: sentAt + 3 });
      const [row] = await db.dataSource.query('SELECT first_dispatched_at FROM runs WHERE id = ?', [runId]);
      expect(Number(row.first_dispatched_at)).toBe(sentAt);
    }
  });

  it.each(['PENDING', 'CLAIMED', 'RETRY_WAIT'] as const)(
    'the outcome of an attempt the engine lost track of (run back in %s after a takeover or an unanswered dispatch) is taken',
    async (state) => {
      const task = await seedTask(db.dataSource, { name: 'charge' });
      const runId = await seedRun(db.dataSource, task, { state, executorId, claimedBy: state === 'CLAIMED' ? 'another-node' : null });
      expect((await post(success(runId))).status).toBe(200);
      expect((await readRun(db.dataSource, runId)).state).toBe('SUCCEEDED');
    },
  );

  it('a success alone carrying nothing but its outcome commits on its own, no transaction; one with log lines in a transaction', async () => {
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const bare = await acceptedRun(task);
    const logged = await acceptedRun(task);
    let transactions = 0;
    const counter = { afterTransactionStart: () => void transactions++ };
    db.dataSource.subscribers.push(counter);
    try {
      expect((await post(success(bare))).status).toBe(200);
      expect(transactions).toBe(0);
      expect((await post(success(logged, 1, { logs: [{ at: Date.now(), level: 'info', message: 'charged' }] }))).status).toBe(200);
      expect(transactions).toBe(1);
    } finally {
      db.dataSource.subscribers.splice(db.dataSource.subscribers.indexOf(counter), 1);
    }
    expect(await readRun(db.dataSource, bare)).toMatchObject({ state: 'SUCCEEDED', result: { charged: 5 }, deadlineAt: null });
  });

  it('a duplicate outcome (re-sent, freshly signed) → 409, nothing changes', async () => {
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const runId = await acceptedRun(task);
    const cb = success(runId);
    expect((await post(cb)).status).toBe(200);
    const after = await readRun(db.dataSource, runId);
    const again = await post({ ...cb, result: { charged: 999 } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ statusCode: 409, code: 'CONFLICT', error: 'Conflict', accepted: false, reason: 'STALE', state: 'SUCCEEDED' });
    expect(await readRun(db.dataSource, runId)).toEqual(after);
  });

  it('an outcome of another attempt (late callback of attempt 1 while attempt 2 runs) → 409', async () => {
    const task = await seedTask(db.dataSource, { name: 'charge', retryMaxAttempts: 3 });
    const runId = await acceptedRun(task, { attempt: 2 });
    const res = await post(failure(runId, 1));
    expect(res.status).toBe(409);
    expect((await readRun(db.dataSource, runId)).state).toBe('ACCEPTED');
  });

  it('a forged callback (wrong secret) → 401, the run is unchanged', async () => {
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const runId = await acceptedRun(task);
    const before = await readRun(db.dataSource, runId);
    const res = await post(success(runId), { secret: 'guessed' });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ statusCode: 401, code: 'BAD_SIGNATURE', error: 'Unauthorized', message: expect.stringMatching(/^signature refused: the tenant \(x-baton-tenant\) or the executor secret is wrong/), reason: 'BAD_SIGNATURE' });
    expect(await readRun(db.dataSource, runId)).toEqual(before);
  });

  it('a tampered body (valid headers of another body) → 401', async () => {
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const runId = await acceptedRun(task);
    const genuine = await post({ runId, attempt: 1, tenantId: TENANT, progress: 10 });
    expect(genuine.status).toBe(200);
    const forged = await post(null, { headers: { ...genuine.headers, 'content-type': 'application/json' }, rawBody: JSON.stringify(success(runId)) });
    expect(forged.status).toBe(401);
    expect((await readRun(db.dataSource, runId)).state).toBe('ACCEPTED');
  });

  it('a replayed callback (same signature again) → 401; a stale timestamp → 401', async () => {
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const runId = await acceptedRun(task);
    const first = await post({ runId, attempt: 1, tenantId: TENANT, progress: 40 });
    expect(first.status).toBe(200);
    const body = JSON.stringify({ runId, attempt: 1, tenantId: TENANT, progress: 40 });
    const replay = await post(null, { headers: first.headers, rawBody: body });
    expect(replay.status).toBe(401);
    expect(replay.body).toMatchObject({ code: 'BAD_SIGNATURE', reason: 'REPLAYED' });
    const stale = await post(success(runId), { now: Date.now() - 10 * 60_000 });
    expect(stale.status).toBe(401);
    expect(stale.body).toMatchObject({ code: 'BAD_SIGNATURE', reason: 'STALE_TIMESTAMP' });
    expect((await readRun(db.dataSource, runId)).state).toBe('ACCEPTED');
  });

  // Issue 12 item 3: hex decoding ignores case and trailing junk, so these re-spellings of a
  // captured signature verified while the replay guard saw a new string (a log line stored 5 times).
  const respellings: Array<[string, (s: string) => string]> = [
    ['upper-cased', (s) => s.toUpperCase()],
    ['mixed-case', (s) => s.replace(/[a-f]/, (c) => c.toUpperCase())], // the first letter: a 7-char prefix can be all digits
    ['0 appended', (s) => `${s}0`],
    ['zz appended', (s) => `${s}zz`],
  ];
  const respelt = (headers: Record<string, string>, spell: (s: string) => string) => ({ ...headers, 'x-baton-signature': spell(headers['x-baton-signature']) });

  it('a captured interim callback replayed with a re-spelt signature → 401 MALFORMED_SIGNATURE each time; its log line is stored once', async () => {
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const runId = await acceptedRun(task);
    const body = JSON.stringify({ runId, attempt: 1, tenantId: TENANT, progress: 30, logs: [{ at: Date.now(), level: 'info', message: 'once' }] });
    const first = await post(null, { rawBody: body });
    expect(first.status).toBe(200);
    for (const [name, spell] of respellings) {
      const replay = await post(null, { headers: respelt(first.headers, spell), rawBody: body });
      expect({ name, status: replay.status, body: replay.body }).toMatchObject({ name, status: 401, body: { statusCode: 401, code: 'BAD_SIGNATURE', reason: 'MALFORMED_SIGNATURE' } });
    }
    expect(await db.dataSource.query('SELECT message FROM run_logs WHERE run_id = ?', [runId])).toEqual([{ message: 'once' }]);
    expect((await readRun(db.dataSource, runId)).state).toBe('ACCEPTED');
  });

  it('a captured outcome callback (single and batch) replayed with a re-spelt signature → 401; the run ends once', async () => {
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const a = await acceptedRun(task);
    const b = await acceptedRun(task, { scheduledAt: Date.now() + 1 });
    const single = JSON.stringify(success(a, 1, { logs: [{ at: Date.now(), level: 'info', message: 'done' }] }));
    const batch = JSON.stringify({ callbacks: [success(b)] });
    const firstSingle = await post(null, { rawBody: single });
    const firstBatch = await signedPost(engine.url, PATHS.callbackBatch, null, { rawBody: batch });
    expect([firstSingle.status, firstBatch.status]).toEqual([200, 200]);
    const ended = [await readRun(db.dataSource, a), await readRun(db.dataSource, b)];
    for (const [name, spell] of respellings) {
      const again = await post(null, { headers: respelt(firstSingle.headers, spell), rawBody: single });
      const againBatch = await signedPost(engine.url, PATHS.callbackBatch, null, { headers: respelt(firstBatch.headers, spell), rawBody: batch });
      expect({ name, single: again.status, batch: againBatch.status, reason: againBatch.body.reason }).toEqual({ name, single: 401, batch: 401, reason: 'MALFORMED_SIGNATURE' });
    }
    expect([await readRun(db.dataSource, a), await readRun(db.dataSource, b)]).toEqual(ended);
    expect(await db.dataSource.query('SELECT message FROM run_logs WHERE run_id = ?', [a])).toEqual([{ message: 'done' }]);
  });

  it("another tenant's signature cannot touch this tenant's run", async () => {
    await seedTenant(db.dataSource, { id: 'globex', secret: 'globex-secret' });
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const runId = await acceptedRun(task);
    // Signed by globex, claiming acme in the body: refused.
    const mismatch = await post(success(runId), { tenantId: 'globex', secret: 'globex-secret' });
    expect(mismatch.status).toBe(401);
    expect(mismatch.body).toMatchObject({ code: 'BAD_SIGNATURE', reason: 'TENANT_MISMATCH' });
    // Signed by globex, honestly globex: the run is not globex's → 409 (unknown), unchanged.
    const honest = await post({ ...success(runId), tenantId: 'globex' }, { tenantId: 'globex', secret: 'globex-secret' });
    expect(honest.status).toBe(409);
    expect(honest.body).toMatchObject({ code: 'CONFLICT', reason: 'UNKNOWN_RUN' });
    expect((await readRun(db.dataSource, runId)).state).toBe('ACCEPTED');
  });

  it('malformed callbacks → 400 naming the field', async () => {
    const bad = await post({ runId: 'x', attempt: 1, tenantId: TENANT });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ statusCode: 400, code: 'VALIDATION_FAILED', error: 'Bad Request', message: 'runId: a positive integer', errors: [{ field: 'runId', reason: 'a positive integer' }] });
    // (With rawBody: true, Nest's JSON parser refuses malformed JSON itself, before the signature check: 400 too.)
    const junk = await post(null, { rawBody: '{nope' });
    expect(junk.status).toBe(400);
    const bad2 = await post({ runId: 1, attempt: 1, tenantId: TENANT, outcome: 'DONE' });
    expect(bad2.status).toBe(400);
    expect(bad2.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'outcome', reason: 'SUCCEEDED, FAILED or ABORTED' }] });
    const bad3 = await post({ runId: 1, attempt: 1, tenantId: TENANT, outcome: 'FAILED', retryable: 'no' });
    expect(bad3.status).toBe(400);
    expect(bad3.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'retryable', reason: 'a boolean' }] });
  });

  it('a batch: each callback judged on its own (recorded, stale, malformed, another tenant), all in one request', async () => {
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const [a, b, c] = [await acceptedRun(task), await acceptedRun(task), await acceptedRun(task)];
    expect((await post(success(c))).status).toBe(200); // c is over already
    const batch = (callbacks: unknown) => signedPost(engine.url, PATHS.callbackBatch, { callbacks });
    const res = await batch([success(a), failure(b, 1), success(c), { runId: 'x', attempt: 1, tenantId: TENANT }, { ...success(a), tenantId: 'other' }, 7]);
    expect(res.status).toBe(200);
    const results = (res.body as { results: Array<{ runId: number; status: number; body: Record<string, unknown> }> }).results;
    expect(results.map((r) => r.status)).toEqual([200, 200, 409, 400, 401, 400]);
    expect(results[0]).toMatchObject({ runId: a, attempt: 1, body: { accepted: true, state: 'SUCCEEDED' } });
    expect(results[1].body).toMatchObject({ accepted: true, state: 'FAILED' }); // no retries left by default
    expect(results[2].body).toMatchObject({ code: 'CONFLICT', reason: 'STALE' });
    expect(results[3].body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'runId', reason: 'a positive integer' }] });
    expect(results[4].body).toMatchObject({ code: 'BAD_SIGNATURE', reason: 'TENANT_MISMATCH' });
    expect(results[5].body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'callbacks[5]', reason: 'must be a JSON object' }] });
    expect((await readRun(db.dataSource, a)).state).toBe('SUCCEEDED');
    expect((await readRun(db.dataSource, b)).state).toBe('FAILED');
    // Not a batch at all: refused whole, naming the field; nothing changes.
    for (const wrong of [[], 'x', Array.from({ length: 101 }, () => success(b))]) {
      const r = await batch(wrong);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'callbacks', reason: expect.any(String) }] });
    }
    expect((await readRun(db.dataSource, b)).state).toBe('FAILED');
    const forged = await signedPost(engine.url, PATHS.callbackBatch, { callbacks: [success(b)] }, { secret: 'wrong' });
    expect(forged.status).toBe(401);
  });

  it('a failure with attempts left → RETRY_WAIT as attempt 2, due after the backoff, RETRYING alarm (INFO)', async () => {
    const task = await seedTask(db.dataSource, { name: 'charge', retryMaxAttempts: 3, retryBackoffBaseMs: 2_000 });
    const runId = await acceptedRun(task);
    const before = Date.now();
    const res = await post(failure(runId));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'RETRY_WAIT' });
    const run = await readRun(db.dataSource, runId);
    // Attempt 2's row: no times yet (attempt 1's are in run_attempts); attempt 1's error says why it waits.
    expect(run).toMatchObject({ state: 'RETRY_WAIT', attempt: 2, claimedBy: null, executorId: null, error: 'card declined', deadlineAt: null, startedAt: null, finishedAt: null });
    expect(run.dueAt).toBeGreaterThanOrEqual(before + 2_000);
    expect(run.dueAt).toBeLessThanOrEqual(Date.now() + 2_000);
    const [alarm, ...more] = await alarms(db.dataSource);
    expect(more).toEqual([]);
    expect(alarm).toMatchObject({ type: 'RETRYING', severity: 'INFO', runId, taskId: task.id });
  });

  it('a retry keeps the ending attempt (run_attempts: its times, executor, error) and the first dispatch time, so lateness stays the first attempt’s (issue 24)', async () => {
    const task = await seedTask(db.dataSource, { name: 'charge-kept', retryMaxAttempts: 3, retryBackoffBaseMs: 2_000 });
    const dispatchedAt = Date.now() - 500;
    const runId = await acceptedRun(task, { dispatchedAt, acceptedAt: dispatchedAt + 3 });
    const sent = failure(runId);
    expect((await post(sent)).status).toBe(200);
    const [kept, ...others] = await db.dataSource.query('SELECT * FROM run_attempts WHERE run_id = ?', [runId]);
    expect(others).toEqual([]);
    expect({ ...kept, dispatched_at: Number(kept.dispatched_at), accepted_at: Number(kept.accepted_at), started_at: Number(kept.started_at), finished_at: Number(kept.finished_at), executor_id: Number(kept.executor_id), attempt: Number(kept.attempt) }).toMatchObject({
      tenant_id: TENANT,
      attempt: 1,
      state: 'FAILED', // how it ended; its times say how far it got
      executor_id: executorId,
      dispatched_at: dispatchedAt,
      accepted_at: dispatchedAt + 3,
      started_at: sent.startedAt,
      finished_at: sent.finishedAt,
      error: 'card declined',
    });
    const [row] = await db.dataSource.query('SELECT first_dispatched_at, dispatched_at FROM runs WHERE id = ?', [runId]);
    expect(Number(row.first_dispatched_at)).toBe(dispatchedAt);
    expect(row.dispatched_at).toBeNull();
    // A duplicate of the same failure is stale: no second copy of attempt 1.
    expect((await post(failure(runId))).status).toBe(409);
    expect(await db.dataSource.query('SELECT id FROM run_attempts WHERE run_id = ?', [runId])).toHaveLength(1);
  });

  it('a failure without attempts left → FAILED + FAILED alarm', async () => {
    const task = await seedTask(db.dataSource, { name: 'charge', retryMaxAttempts: 2 });
    const runId = await acceptedRun(task, { attempt: 2 });
    expect((await post(failure(runId, 2, 'still declined'))).status).toBe(200);
    expect(await readRun(db.dataSource, runId)).toMatchObject({ state: 'FAILED', attempt: 2, error: 'still declined' });
    expect((await alarms(db.dataSource)).map((x) => [x.type, x.severity])).toEqual([['FAILED', 'CRITICAL']]);
  });

  it("a failure's stack stays out of its alarm's message: the first line there, the rest in the alarm's data.detail; the run keeps it whole", async () => {
    const task = await seedTask(db.dataSource, { name: 'charge', retryMaxAttempts: 2 });
    const retried = await acceptedRun(task);
    const last = await acceptedRun(task, { attempt: 2, scheduledAt: Date.now() + 1 });
    const stack = 'TypeError: card declined\n    at charge (dist/handlers/charge.js:12:9)\n    at run (node_modules/@baton/executor-sdk/dist/run-job.js:80:20)';
    expect((await post(failure(retried, 1, stack))).status).toBe(200);
    expect((await post(failure(last, 2, stack))).status).toBe(200);
    const rows = (await db.dataSource.query('SELECT type, message, data FROM alarms ORDER BY id')) as Array<{ type: string; message: string; data: string }>;
    expect(rows.map((r) => r.type)).toEqual(['RETRYING', 'FAILED']);
    for (const row of rows) {
      expect(row.message).toContain(': TypeError: card declined');
      expect(row.message).not.toContain('\n');
      expect(row.message).not.toContain('at charge');
      expect(JSON.parse(row.data)).toMatchObject({ error: 'TypeError: card declined', detail: stack.split('\n').slice(1).join('\n') });
    }
    expect((await readRun(db.dataSource, last)).error).toBe(stack);
  });

  it('a failure marked retryable: false (NonRetryableError) ends FAILED at once, attempts left or not', async () => {
    const task = await seedTask(db.dataSource, { name: 'charge', retryMaxAttempts: 3 });
    const runId = await acceptedRun(task);
    const res = await post({ ...failure(runId, 1, 'NonRetryableError: no such customer'), retryable: false });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'FAILED' });
    expect(await readRun(db.dataSource, runId)).toMatchObject({ state: 'FAILED', attempt: 1, error: 'NonRetryableError: no such customer' });
    expect((await alarms(db.dataSource)).map((x) => [x.type, x.severity])).toEqual([['FAILED', 'CRITICAL']]);
    // retryable: true is the default: the policy decides.
    const other = await acceptedRun(task);
    expect((await post({ ...failure(other), retryable: true })).body).toMatchObject({ state: 'RETRY_WAIT' });
  });

  it('ABORTED counts as FAILED; ABORTED on the deadline counts as TIMED_OUT; ABORTED after the engine timed it out is stale', async () => {
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const r1 = await acceptedRun(task);
    expect((await post({ runId: r1, attempt: 1, tenantId: TENANT, outcome: 'ABORTED', abortReason: 'SHUTDOWN' })).status).toBe(200);
    // Reported without a time: the engine stamps its end on receipt, on its own clock.
    expect(await readRun(db.dataSource, r1)).toMatchObject({ state: 'FAILED', error: 'aborted (SHUTDOWN)', finishedClock: 'engine' });
    const r2 = await acceptedRun(task);
    const abortedAt = Date.now() - 50;
    expect((await post({ runId: r2, attempt: 1, tenantId: TENANT, outcome: 'ABORTED', abortReason: 'DEADLINE', finishedAt: abortedAt })).status).toBe(200);
    // The executor's own timeout: its end is its report, on its clock.
    expect(await readRun(db.dataSource, r2)).toMatchObject({ state: 'TIMED_OUT', finishedAt: abortedAt, finishedClock: 'executor' });
    const r3 = await seedRun(db.dataSource, task, { state: 'TIMED_OUT', claimedBy: null });
    expect((await post({ runId: r3, attempt: 1, tenantId: TENANT, outcome: 'ABORTED', abortReason: 'TIMEOUT' })).status).toBe(409);
    expect((await readRun(db.dataSource, r3)).state).toBe('TIMED_OUT');
  });

  it('ABORTED NO_CONTACT (a run sent ahead its executor never started) is handed back: attempt 2 at its instant, not counted, no alarm; said again → 409', async () => {
    const task = await seedTask(db.dataSource, { name: 'charge', retryMaxAttempts: 1 });
    const instant = Date.now() + 20_000;
    const runId = await acceptedRun(task, { scheduledAt: instant, dueAt: instant });
    const dropped = { runId, attempt: 1, tenantId: TENANT, executorId, outcome: 'ABORTED', abortReason: 'NO_CONTACT', error: 'not started: sent ahead (before it started)', finishedAt: Date.now() };
    expect((await post(dropped)).body).toMatchObject({ accepted: true, state: 'RETRY_WAIT' });
    expect(await readRun(db.dataSource, runId)).toMatchObject({ state: 'RETRY_WAIT', attempt: 2, executorId: null, error: expect.stringMatching(/^handed back by executor http:\/\/127.0.0.1:9, which never started it: not started/) });
    const [row] = (await db.dataSource.query('SELECT due_at, instant_at FROM runs WHERE id = ?', [runId])) as Array<{ due_at: number; instant_at: number }>;
    expect([Number(row.instant_at), Number(row.due_at) <= Date.now()]).toEqual([instant, true]);
    const [attempt1] = (await db.dataSource.query('SELECT state FROM run_attempts WHERE run_id = ?', [runId])) as Array<{ state: string }>;
    expect(attempt1.state).toBe('HANDED_BACK');
    expect(await alarms(db.dataSource)).toEqual([]);
    expect((await post(dropped)).status).toBe(409);
  });

  it('a run handed back and sent again is as late as the attempt that started: its re-send, not the handed-back attempt sent ahead for its instant (run view and statistics alike)', async () => {
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const instant = Date.now() - 60_000;
    // Sent ahead and accepted: its dispatch is recorded at its instant.
    const runId = await acceptedRun(task, { scheduledAt: instant, dueAt: instant, dispatchedAt: instant, acceptedAt: instant });
    expect((await post({ runId, attempt: 1, tenantId: TENANT, executorId, outcome: 'ABORTED', abortReason: 'NO_CONTACT', error: 'not started: no contact with the engines', finishedAt: instant - 1_000 })).status).toBe(200);
    // Sent again 30 s after its instant (the engines could not before), and started.
    const resentAt = instant + 30_000;
    await db.dataSource.query("UPDATE runs SET state = 'ACCEPTED', claimed_by = ?, executor_id = ?, dispatched_at = ?, accepted_at = ?, deadline_at = ? WHERE id = ? AND attempt = 2", [NODE_ID, executorId, resentAt, resentAt, resentAt + 60_000, runId]);
    expect((await post(success(runId, 2, { startedAt: resentAt + 5, finishedAt: resentAt + 50 }))).body).toMatchObject({ state: 'SUCCEEDED' });
    const row = await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id: runId });
    expect(firstAttemptLateness(row)).toBe(30_000);
    const [ended] = await readEndedRuns(db.dataSource.manager, { tenantId: TENANT, from: resentAt, to: resentAt + 1_000 });
    expect(firstAttemptLateness(ended)).toBe(30_000);
    expect(retryWait(ended)).toBeNull(); // a hand-back is no retry
  });

  it(`a run handed back ${MAX_CONSECUTIVE_HAND_BACKS} times in a row counts the next ABORTED NO_CONTACT as a failed attempt: the retry policy decides, and a counted attempt starts the streak again`, async () => {
    const task = await seedTask(db.dataSource, { name: 'charge', retryMaxAttempts: 2, retryBackoffBaseMs: 60_000 });
    const instant = Date.now() + 20_000;
    const runId = await acceptedRun(task, { scheduledAt: instant, dueAt: instant });
    // Its executor never has contact: every time the run is sent to it, it answers NO_CONTACT.
    const noContact = async (attempt: number) => {
      if (attempt > 1) await db.dataSource.query("UPDATE runs SET state = 'ACCEPTED', claimed_by = ?, executor_id = ?, dispatched_at = ?, accepted_at = ? WHERE id = ? AND attempt = ?", [NODE_ID, executorId, Date.now(), Date.now(), runId, attempt]);
      const res = await post({ runId, attempt, tenantId: TENANT, executorId, outcome: 'ABORTED', abortReason: 'NO_CONTACT', error: 'not started: no contact with the engines', finishedAt: Date.now() });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return readRun(db.dataSource, runId);
    };
    const states = async () => ((await db.dataSource.query('SELECT state FROM run_attempts WHERE run_id = ? ORDER BY attempt', [runId])) as Array<{ state: string }>).map((r) => r.state);
    for (let attempt = 1; attempt <= MAX_CONSECUTIVE_HAND_BACKS; attempt++) expect(await noContact(attempt)).toMatchObject({ state: 'RETRY_WAIT', attempt: attempt + 1 });
    expect(await alarms(db.dataSource)).toEqual([]);

    // One more in a row: counted, as a failure; the task's second attempt is left, after its backoff.
    const counted = await noContact(MAX_CONSECUTIVE_HAND_BACKS + 1);
    expect(counted).toMatchObject({ state: 'RETRY_WAIT', attempt: MAX_CONSECUTIVE_HAND_BACKS + 2, error: expect.stringContaining(`handed back ${MAX_CONSECUTIVE_HAND_BACKS + 1} times in a row without starting`) });
    expect(counted.dueAt).toBeGreaterThan(Date.now() + 5_000); // after its backoff, no earlier than its instant: a hand-back is due at once
    expect(await states()).toEqual([...Array<string>(MAX_CONSECUTIVE_HAND_BACKS).fill('HANDED_BACK'), 'FAILED']);
    expect((await alarms(db.dataSource)).map((a) => a.type)).toEqual(['RETRYING']);

    // The streak starts again: handed back, uncounted, up to the cap; the one past it is the task's last attempt, and the run fails.
    for (let i = 0; i < MAX_CONSECUTIVE_HAND_BACKS; i++) expect((await noContact(MAX_CONSECUTIVE_HAND_BACKS + 2 + i)).state).toBe('RETRY_WAIT');
    const last = await noContact(2 * MAX_CONSECUTIVE_HAND_BACKS + 2);
    expect(last).toMatchObject({ state: 'FAILED', attempt: 2 * MAX_CONSECUTIVE_HAND_BACKS + 2, error: expect.stringContaining('counted as a failed attempt') });
    const failed = await alarms(db.dataSource, 'FAILED');
    expect(failed).toHaveLength(1);
    expect(failed[0].message).toContain(`attempt 2 of 2, after ${2 * MAX_CONSECUTIVE_HAND_BACKS} handed back unstarted`);
  });

  it('the ABORTED outcome of a run cancelled or timed out while it ran is stale, but leaves its start (no later than the cancel, that attempt, once)', async () => {
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const cancelledAt = Date.now();
    const cancelled = (more: Parameters<typeof seedRun>[2] = {}) => seedRun(db.dataSource, task, { state: 'CANCELLED', claimedBy: null, executorId, finishedAt: cancelledAt, ...more });
    const aborted = (runId: number, startedAt: number, attempt = 1) =>
      post({ runId, attempt, tenantId: TENANT, outcome: 'ABORTED', abortReason: 'CANCELLED', startedAt, finishedAt: cancelledAt + 5 });

    const ran = await cancelled();
    expect((await aborted(ran, cancelledAt - 300)).body).toMatchObject({ accepted: false, reason: 'STALE', state: 'CANCELLED' });
    expect(await readRun(db.dataSource, ran)).toMatchObject({ state: 'CANCELLED', startedAt: cancelledAt - 300, finishedAt: cancelledAt });
    expect((await aborted(ran, cancelledAt - 100)).status).toBe(409);
    expect((await readRun(db.dataSource, ran)).startedAt).toBe(cancelledAt - 300);

    const clockAhead = await cancelled();
    await aborted(clockAhead, cancelledAt + 1);
    expect((await readRun(db.dataSource, clockAhead)).startedAt).toBeNull();
    const earlierAttempt = await cancelled({ attempt: 2 });
    await aborted(earlierAttempt, cancelledAt - 300, 1);
    expect((await readRun(db.dataSource, earlierAttempt)).startedAt).toBeNull();
    // Timed out by the watchdog: a handler that ignores its abort reports (its start too) only after the grace.
    const timedOut = await seedRun(db.dataSource, task, { state: 'TIMED_OUT', claimedBy: null, finishedAt: cancelledAt });
    await aborted(timedOut, cancelledAt - 300);
    expect(await readRun(db.dataSource, timedOut)).toMatchObject({ state: 'TIMED_OUT', startedAt: cancelledAt - 300 });
    const failed = await seedRun(db.dataSource, task, { state: 'FAILED', claimedBy: null, finishedAt: cancelledAt });
    await aborted(failed, cancelledAt - 300);
    expect((await readRun(db.dataSource, failed)).startedAt).toBeNull();
  });

  it("the ABORTED outcome of a run cancelled or timed out while it ran is stale, but leaves the handler's last log lines (that attempt, that tenant, under the per-run cap)", async () => {
    await seedTenant(db.dataSource, { id: 'globex', secret: 'globex-secret' });
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const endedAt = Date.now();
    const ended = (state: 'CANCELLED' | 'TIMED_OUT' | 'FAILED', more: Parameters<typeof seedRun>[2] = {}) => seedRun(db.dataSource, task, { state, claimedBy: null, executorId, finishedAt: endedAt, ...more });
    const lastWords = (runId: number, attempt = 1, tenantId = TENANT) => ({
      runId,
      attempt,
      tenantId,
      outcome: 'ABORTED',
      abortReason: 'CANCELLED',
      finishedAt: endedAt + 5,
      logs: [
        { at: endedAt + 1, level: 'info', message: 'refund 2 of 3' },
        { at: endedAt + 4, level: 'warn', message: 'stopping: aborted' },
      ],
    });
    const kept = [
      [1, 'info', 'refund 2 of 3'],
      [1, 'warn', 'stopping: aborted'],
    ];

    const cancelled = await ended('CANCELLED');
    expect((await post(lastWords(cancelled))).body).toMatchObject({ accepted: false, reason: 'STALE', state: 'CANCELLED' });
    expect(await linesOf(cancelled)).toEqual(kept);
    expect(await readRun(db.dataSource, cancelled)).toMatchObject({ state: 'CANCELLED', finishedAt: endedAt });
    const timedOut = await ended('TIMED_OUT');
    expect((await post(lastWords(timedOut))).status).toBe(409);
    expect(await linesOf(timedOut)).toEqual(kept);
    // Not kept: another attempt's, a run that ended otherwise, another tenant's callback of the run.
    const later = await ended('CANCELLED', { attempt: 2 });
    expect((await post(lastWords(later, 1))).status).toBe(409);
    const failed = await ended('FAILED');
    expect((await post(lastWords(failed))).status).toBe(409);
    const honest = await post(lastWords(cancelled, 1, 'globex'), { tenantId: 'globex', secret: 'globex-secret' });
    expect(honest.body).toMatchObject({ accepted: false, reason: 'UNKNOWN_RUN' });
    expect([await linesOf(later), await linesOf(failed), await linesOf(cancelled)]).toEqual([[], [], kept]);

    // The per-run cap holds: one place left takes the marker of what was dropped.
    const full = await ended('CANCELLED');
    const lines = Array.from({ length: MAX_LOG_LINES_PER_RUN - 1 }, (_, i) => ({ at: endedAt, level: 'info' as const, message: `line ${i}` }));
    await inTransaction(db.dataSource, (em) => appendRunLogs(em, { tenantId: TENANT, runId: full, attempt: 1, lines, maxPerRun: MAX_LOG_LINES_PER_RUN, now: endedAt }));
    expect((await post(lastWords(full))).status).toBe(409);
    const [last] = (await db.dataSource.query('SELECT message FROM run_logs WHERE run_id = ? ORDER BY id DESC LIMIT 1', [full])) as Array<{ message: string }>;
    const [{ n }] = (await db.dataSource.query('SELECT COUNT(*) AS n FROM run_logs WHERE run_id = ?', [full])) as Array<{ n: number | string }>;
    expect([Number(n), last.message]).toEqual([MAX_LOG_LINES_PER_RUN, `[baton] 2 log line(s) dropped: the run reached its cap of ${MAX_LOG_LINES_PER_RUN} lines`]);
  });

  it("a final callback sent again (its answer lost) leaves its log lines once: a cancelled or timed-out run's kept lines, and those of an ABORTED on the deadline that timed its attempt out", async () => {
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const retried = await seedTask(db.dataSource, { name: 'charge-again', retryMaxAttempts: 2, retryBackoffBaseMs: 60_000 });
    const endedAt = Date.now();
    const lastWords = (runId: number, abortReason: string) => ({
      runId,
      attempt: 1,
      tenantId: TENANT,
      outcome: 'ABORTED',
      abortReason,
      startedAt: endedAt - 300,
      finishedAt: endedAt + 5,
      logs: [
        { at: endedAt + 1, level: 'info', message: 'refund 2 of 3' },
        { at: endedAt + 4, level: 'warn', message: 'stopping: aborted' },
      ],
    });
    const once = [
      [1, 'info', 'refund 2 of 3'],
      [1, 'warn', 'stopping: aborted'],
    ];

    // Ended by Baton (a cancel, the watchdog): the report is stale, its lines kept — by the first copy only, also of two at once.
    const cancelled = await seedRun(db.dataSource, task, { state: 'CANCELLED', claimedBy: null, executorId, finishedAt: endedAt });
    expect((await post(lastWords(cancelled, 'CANCELLED'))).status).toBe(409);
    expect((await post(lastWords(cancelled, 'CANCELLED'))).body).toMatchObject({ accepted: false, reason: 'STALE', state: 'CANCELLED' });
    const timedOut = await seedRun(db.dataSource, task, { state: 'TIMED_OUT', claimedBy: null, executorId, finishedAt: endedAt });
    const together = await Promise.all([post(lastWords(timedOut, 'TIMEOUT')), post(lastWords(timedOut, 'TIMEOUT'))]);
    expect(together.map((r) => r.status)).toEqual([409, 409]);
    // Ended by the report itself (TIMED_OUT on the executor's deadline; retried, or not): its copy is stale, and keeps nothing.
    const deadline = await acceptedRun(task);
    expect((await post(lastWords(deadline, 'DEADLINE'))).body).toMatchObject({ accepted: true, state: 'TIMED_OUT' });
    expect((await post(lastWords(deadline, 'DEADLINE'))).body).toMatchObject({ accepted: false, reason: 'STALE', state: 'TIMED_OUT' });
    const deadlineRetried = await acceptedRun(retried);
    expect((await post(lastWords(deadlineRetried, 'DEADLINE'))).body).toMatchObject({ accepted: true, state: 'RETRY_WAIT' });
    expect((await post(lastWords(deadlineRetried, 'DEADLINE'))).body).toMatchObject({ accepted: false, reason: 'STALE', state: 'RETRY_WAIT' });

    expect([await linesOf(cancelled), await linesOf(timedOut), await linesOf(deadline), await linesOf(deadlineRetried)]).toEqual([once, once, once, once]);
    expect(await readRun(db.dataSource, cancelled)).toMatchObject({ state: 'CANCELLED', startedAt: endedAt - 300, finishedAt: endedAt });
  });

  it("the ABORTED outcome of an attempt timed out and retried, which comes while the next attempt runs, is stale but leaves that attempt's start and last log lines (once), the next attempt as it is", async () => {
    await seedTenant(db.dataSource, { id: 'globex', secret: 'globex-secret' });
    const task = await seedTask(db.dataSource, { name: 'charge', retryMaxAttempts: 3, retryBackoffBaseMs: 1 });
    const outcomes = engine.get(RunOutcomes);
    /** A run whose attempt 1 the watchdog ended as `to` (TIMED_OUT: past its deadline) and retried; attempt 2 is running. */
    const retriedAfter = async (to: 'TIMED_OUT' | 'FAILED') => {
      const runId = await acceptedRun(task, { deadlineAt: Date.now() - 1 });
      const [run] = await findRunsForCallback(db.dataSource.manager, [{ runId, tenantId: TENANT }]);
      const now = Date.now();
      await inTransaction(db.dataSource, (em) => outcomes.endAttempt(em, run!, { to, error: `${to} by the engine` }, { from: ['ACCEPTED'], now }));
      await db.dataSource.query("UPDATE runs SET state = 'ACCEPTED', claimed_by = ?, executor_id = ?, dispatched_at = ?, accepted_at = ? WHERE id = ? AND attempt = 2", [NODE_ID, executorId, now, now, runId]);
      return { runId, endedAt: now };
    };
    const lastWords = (runId: number, endedAt: number, more: Record<string, unknown> = {}) => ({
      runId,
      attempt: 1,
      tenantId: TENANT,
      outcome: 'ABORTED',
      abortReason: 'TIMEOUT',
      startedAt: endedAt - 300,
      finishedAt: endedAt + 5,
      logs: [{ at: endedAt + 1, level: 'warn', message: 'stopping: aborted' }],
      ...more,
    });
    const attempt1 = async (runId: number) => {
      const [row] = (await db.dataSource.query('SELECT state, started_at FROM run_attempts WHERE run_id = ? AND attempt = 1', [runId])) as Array<{ state: string; started_at: number | string | null }>;
      return { state: row.state, startedAt: row.started_at === null ? null : Number(row.started_at) };
    };

    const { runId, endedAt } = await retriedAfter('TIMED_OUT');
    const before = await readRun(db.dataSource, runId);
    expect(before).toMatchObject({ state: 'ACCEPTED', attempt: 2, startedAt: null });
    expect((await post(lastWords(runId, endedAt))).body).toMatchObject({ accepted: false, reason: 'STALE', state: 'ACCEPTED', attempt: 1 });
    expect((await post(lastWords(runId, endedAt))).status).toBe(409);
    expect(await linesOf(runId)).toEqual([[1, 'warn', 'stopping: aborted']]);
    expect(await attempt1(runId)).toEqual({ state: 'TIMED_OUT', startedAt: endedAt - 300 });
    expect(await readRun(db.dataSource, runId)).toEqual(before);
    // Attempt 2 goes on as ever: its own report is taken.
    expect((await post(success(runId, 2))).body).toMatchObject({ accepted: true, state: 'SUCCEEDED' });

    // Not kept: an attempt that failed (its report was taken), another tenant's callback, a late outcome other than ABORTED.
    const failed = await retriedAfter('FAILED');
    expect((await post(lastWords(failed.runId, failed.endedAt))).status).toBe(409);
    const other = await retriedAfter('TIMED_OUT');
    expect((await post(lastWords(other.runId, other.endedAt, { tenantId: 'globex' }), { tenantId: 'globex', secret: 'globex-secret' })).body).toMatchObject({ reason: 'UNKNOWN_RUN' });
    expect((await post(lastWords(other.runId, other.endedAt, { outcome: 'SUCCEEDED', abortReason: undefined }))).status).toBe(409);
    expect([await linesOf(failed.runId), await linesOf(other.runId), (await attempt1(other.runId)).startedAt]).toEqual([[], [], null]);
  });

  it('interim callbacks: progress, log lines, business alarms; 409 once the attempt is over', async () => {
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const runId = await acceptedRun(task);
    const res = await post({
      runId,
      attempt: 1,
      tenantId: TENANT,
      progress: 42.4,
      startedAt: Date.now() - 5,
      logs: [{ at: Date.now(), level: 'info', message: 'half way' }],
      alarms: [{ severity: 'WARNING', message: 'stock low', data: { sku: 'A1' }, at: Date.now() }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ accepted: true, state: 'RUNNING' });
    const run = await readRun(db.dataSource, runId);
    expect(run).toMatchObject({ state: 'ACCEPTED', progress: 42 });
    expect(run.startedAt).not.toBeNull();
    expect(await alarms(db.dataSource)).toMatchObject([{ type: 'BUSINESS', severity: 'WARNING', message: 'stock low', runId, taskId: task.id, executorId }]);
    expect(((await db.dataSource.query('SELECT COUNT(*) AS n FROM run_logs WHERE run_id = ?', [runId])) as Array<{ n: number }>)[0].n).toBe(1);

    expect((await post(success(runId))).status).toBe(200);
    const late = await post({ runId, attempt: 1, tenantId: TENANT, progress: 99, logs: [{ at: Date.now(), level: 'info', message: 'too late' }] });
    expect(late.status).toBe(409);
    expect(Number(((await db.dataSource.query('SELECT COUNT(*) AS n FROM run_logs WHERE run_id = ?', [runId])) as Array<{ n: number }>)[0].n)).toBe(1);
  });

  it("a stale interim callback → 409 STALE with the run's state; a withdrawn fire's settles its withdrawal (its executor started it), the others look for no withdrawal", async () => {
    const task = await seedTask(db.dataSource, { name: 'charge' });
    const endedAt = Date.now();
    const interim = (runId: number) => ({ runId, attempt: 1, tenantId: TENANT, progress: 50, startedAt: endedAt - 300, logs: [{ at: endedAt, level: 'info', message: 'too late' }] });
    const ended = await Promise.all((['CANCELLED', 'TIMED_OUT', 'SUCCEEDED'] as const).map((state) => seedRun(db.dataSource, task, { state, claimedBy: null, executorId, finishedAt: endedAt })));
    const withdrawn = await seedRun(db.dataSource, task, { state: 'CANCELLED', claimedBy: null, executorId, finishedAt: endedAt });
    await db.dataSource.query("UPDATE runs SET withdrawal = 'UNSETTLED', error = ? WHERE id = ?", [WITHDRAWN_BY.pause, withdrawn]);
    const statements: string[] = [];
    const logger = db.dataSource.logger;
    const logQuery = logger.logQuery;
    logger.logQuery = (query, parameters, runner) => (statements.push(query), logQuery.call(logger, query, parameters, runner));
    try {
      const { body } = await signedPost(engine.url, PATHS.callbackBatch, { callbacks: ended.map(interim) });
      expect((body.results as Array<{ status: number; body: unknown }>).map((r) => [r.status, r.body])).toEqual(
        ['CANCELLED', 'TIMED_OUT', 'SUCCEEDED'].map((state, i) => [409, expect.objectContaining({ reason: 'STALE', state, runId: ended[i], attempt: 1 })]),
      );
      // Neither findUnsettledWithdrawal nor recordRanWithdrawnFire: the runs' read says none is a withdrawn fire.
      expect(statements.filter((q) => /withdrawal (=|IN)/.test(q))).toEqual([]);
    } finally {
      logger.logQuery = logQuery;
    }
    expect((await post(interim(withdrawn))).body).toMatchObject({ accepted: false, reason: 'STALE', state: 'CANCELLED' });
    expect(await readRun(db.dataSource, withdrawn)).toMatchObject({ state: 'CANCELLED', startedAt: endedAt - 300, error: expect.stringContaining('this instant ran as it was prepared') });
    const [{ withdrawal }] = (await db.dataSource.query('SELECT withdrawal FROM runs WHERE id = ?', [withdrawn])) as Array<{ withdrawal: string }>;
    expect(withdrawal).toBe('STARTED');
    for (const runId of [...ended, withdrawn]) expect(await linesOf(runId)).toEqual([]);
  });

  it('stores every alarm of a callback an SDK sends (as many as it holds waiting: MAX_ALARMS_PER_CALLBACK), none past that', async () => {
    const task = await seedTask(db.dataSource, { name: 'chatty' });
    const runId = await acceptedRun(task);
    const many = Array.from({ length: MAX_ALARMS_PER_CALLBACK + 1 }, (_, i) => ({ severity: 'INFO' as const, message: `alarm ${i}`, at: Date.now() }));
    expect((await post({ runId, attempt: 1, tenantId: TENANT, alarms: many })).status).toBe(200);
    const stored = (await alarms(db.dataSource)).map((a) => a.message);
    expect(stored.length).toBe(MAX_ALARMS_PER_CALLBACK);
    expect(stored).not.toContain(`alarm ${MAX_ALARMS_PER_CALLBACK}`);
  });

  it('business alarms keep the executor’s id (a repeated callback writes them once); one the executor published itself is published by the engine too', async () => {
    const task = await seedTask(db.dataSource, { name: 'ledger' });
    const runId = await acceptedRun(task);
    const viaEngine = { id: '11111111-2222-4333-8444-555555555555', severity: 'WARNING' as const, message: 'via engine', at: Date.now() };
    const direct = { id: '66666666-7777-4888-9999-000000000000', severity: 'CRITICAL' as const, message: 'direct', at: Date.now(), published: true };
    const interim = { runId, attempt: 1, tenantId: TENANT, alarms: [viaEngine, direct] };
    expect((await post(interim)).status).toBe(200);
    expect((await post(interim)).status).toBe(200); // its answer was lost: the executor sends them again
    const rows = (await db.dataSource.query('SELECT uid, message, published_at FROM alarms WHERE run_id = ? ORDER BY id', [runId])) as Array<{
      uid: string;
      message: string;
      published_at: number | null;
    }>;
    // Both in the outbox: the consoles push only what the engine publishes from the database (an
    // executor's own message on the topic is dropped there).
    expect(rows.map((r) => [r.uid, r.message, r.published_at === null ? 'outbox' : 'published'])).toEqual([
      [viaEngine.id, 'via engine', 'outbox'],
      [direct.id, 'direct', 'outbox'],
    ]);
    // Not an id: the engine makes one.
    expect((await post({ runId, attempt: 1, tenantId: TENANT, alarms: [{ id: 'no spaces allowed', severity: 'INFO', message: 'x', at: Date.now(), published: true }] })).status).toBe(200);
    const [last] = (await db.dataSource.query(`SELECT uid, published_at FROM alarms WHERE message = 'x'`)) as Array<{ uid: string; published_at: number | null }>;
    expect(last.uid).not.toBe('no spaces allowed');
    expect(last.published_at).toBeNull();
  });

  it('a task that does not raise an alarm type gets no alarm of it', async () => {
    const task = await seedTask(db.dataSource, { name: 'quiet', retryMaxAttempts: 1, alarmTypes: ['TIMEOUT'] });
    const runId = await acceptedRun(task);
    expect((await post(failure(runId))).status).toBe(200);
    expect((await readRun(db.dataSource, runId)).state).toBe('FAILED');
    expect(await alarms(db.dataSource)).toEqual([]);
  });

  it('chain A → B → C with B failing once: only B is retried (same row, attempt 2), then C fires', async () => {
    const A = await seedTask(db.dataSource, { name: 'A' });
    const B = await seedTask(db.dataSource, { name: 'B', retryMaxAttempts: 2, retryBackoffBaseMs: 1_000 });
    const C = await seedTask(db.dataSource, { name: 'C', params: { c: true } });
    await edge(A, B);
    await edge(B, C);
    const a = await acceptedRun(A);
    await db.dataSource.query('UPDATE runs SET flow_params = ? WHERE id = ?', ['{"day":"2026-11-24"}', a]); // given when the flow was triggered
    expect((await post(success(a))).status).toBe(200);

    const [b] = await runsOfTask(db.dataSource, B.id);
    expect(b).toMatchObject({ state: 'PENDING', cause: 'DEPENDENCY', fireKey: `f:${a}`, flowId: a, parentRunId: a, attempt: 1 });
    await dispatched(b.id, 1);
    expect((await post(failure(b.id, 1))).status).toBe(200);
    expect(await readRun(db.dataSource, b.id)).toMatchObject({ state: 'RETRY_WAIT', attempt: 2 });
    expect(await runsOfTask(db.dataSource, C.id)).toEqual([]);

    await dispatched(b.id, 2); // the retry: claimed and dispatched again as attempt 2
    expect((await post(success(b.id, 2))).status).toBe(200);
    const [c, ...moreC] = await runsOfTask(db.dataSource, C.id);
    expect(moreC).toEqual([]);
    expect(c).toMatchObject({ state: 'PENDING', cause: 'DEPENDENCY', fireKey: `f:${a}`, flowId: a, parentRunId: b.id });
    // Nothing ran twice: one run of A (attempt 1), one of B (attempt 2), one of C.
    expect((await runsOfTask(db.dataSource, A.id)).map((r) => [r.state, r.attempt])).toEqual([['SUCCEEDED', 1]]);
    expect((await runsOfTask(db.dataSource, B.id)).map((r) => [r.state, r.attempt])).toEqual([['SUCCEEDED', 2]]);
    const params = (await db.dataSource.query('SELECT params, parent_results FROM runs WHERE id = ?', [c.id])) as Array<{ params: string; parent_results: string }>;
    expect(JSON.parse(params[0].params)).toEqual({ c: true });
    // C sees its parent's result in this flow (ctx.parentResults); B saw A's.
    expect(JSON.parse(params[0].parent_results)).toEqual({ B: { charged: 5 } });
    const ofB = (await db.dataSource.query('SELECT parent_results, flow_params FROM runs WHERE id = ?', [b.id])) as Array<{ parent_results: string; flow_params: string }>;
    expect(JSON.parse(ofB[0].parent_results)).toEqual({ A: { charged: 5 } });
    // Every run of the flow carries the flow's params.
    expect(JSON.parse(ofB[0].flow_params)).toEqual({ day: '2026-11-24' });
    const ofC = (await db.dataSource.query('SELECT flow_params FROM runs WHERE id = ?', [c.id])) as Array<{ flow_params: string }>;
    expect(JSON.parse(ofC[0].flow_params)).toEqual({ day: '2026-11-24' });
  });

  it('fan-in: D waits for both A and B of the flow', async () => {
    const { root, A, B, D, a, b } = await fanIn();
    expect((await post(success(a))).status).toBe(200);
    expect(await runsOfTask(db.dataSource, D.id)).toEqual([]);
    expect((await post(success(b))).status).toBe(200);
    const [d, ...more] = await runsOfTask(db.dataSource, D.id);
    expect(more).toEqual([]);
    expect(d).toMatchObject({ state: 'PENDING', fireKey: `f:${root}`, flowId: root, parentRunId: b });
    expect(A.id).not.toBe(B.id);
  });

  it('fan-in: parents finishing at the same moment fire D exactly once', async () => {
    for (let round = 0; round < 5; round++) {
      await db.clear();
      await seedTenant(db.dataSource);
      executorId = await seedExecutor(db.dataSource, { url: 'http://127.0.0.1:9' });
      const { D, a, b } = await fanIn();
      const [ra, rb] = await Promise.all([post(success(a)), post(success(b))]);
      expect([ra.status, rb.status]).toEqual([200, 200]);
      expect(await runsOfTask(db.dataSource, D.id), `round ${round}`).toHaveLength(1);
    }
  });

  it('fan-in: a parent that failed rules the child out (ON_SUCCESS)', async () => {
    const { D, a, b } = await fanIn();
    expect((await post(success(a))).status).toBe(200);
    expect((await post(failure(b))).status).toBe(200);
    expect(await runsOfTask(db.dataSource, D.id)).toEqual([]);
  });

  it('ON_FAILURE edges fire on a final failure; a paused child is recorded SKIPPED', async () => {
    const P = await seedTask(db.dataSource, { name: 'P' });
    const onFail = await seedTask(db.dataSource, { name: 'cleanup' });
    const paused = await seedTask(db.dataSource, { name: 'paused-child', paused: true });
    await edge(P, onFail, 'ON_FAILURE');
    await edge(P, paused, 'ON_COMPLETION');
    const p = await acceptedRun(P);
    expect((await post(failure(p))).status).toBe(200);
    expect((await runsOfTask(db.dataSource, onFail.id)).map((r) => r.state)).toEqual(['PENDING']);
    const [skipped] = await runsOfTask(db.dataSource, paused.id);
    expect(skipped).toMatchObject({ state: 'SKIPPED', error: expect.stringMatching(/paused/) });
  });

  it('FIXED_DELAY: the end of a scheduled run sets the next fire to finish + delay (once)', async () => {
    const task = await seedTask(db.dataSource, { name: 'poll', triggerKind: 'FIXED_DELAY', intervalMs: 5_000, nextFireAt: null, fireCount: 1 });
    const runId = await acceptedRun(task, { cause: 'SCHEDULE' });
    const before = Date.now();
    expect((await post(success(runId))).status).toBe(200);
    const after = Date.now();
    const [{ next_fire_at }] = (await db.dataSource.query('SELECT next_fire_at FROM tasks WHERE id = ?', [task.id])) as Array<{ next_fire_at: number }>;
    expect(Number(next_fire_at)).toBeGreaterThanOrEqual(before + 5_000);
    expect(Number(next_fire_at)).toBeLessThanOrEqual(after + 5_000);
    // A manual run of the same task does not move it.
    const manual = await acceptedRun(task, { cause: 'MANUAL' });
    expect((await post(success(manual))).status).toBe(200);
    const [{ next_fire_at: again }] = (await db.dataSource.query('SELECT next_fire_at FROM tasks WHERE id = ?', [task.id])) as Array<{ next_fire_at: number }>;
    expect(Number(again)).toBe(Number(next_fire_at));
  });

  it('works with bodyParser: false too (the module reads the raw body itself)', async () => {
    const other = await startDispatchSide(db.dataSource, { nodeId: 'node-raw' }, { rawBody: false });
    try {
      const task = await seedTask(db.dataSource, { name: 'charge' });
      const runId = await acceptedRun(task);
      const res = await signedPost(other.url, PATHS.callback, success(runId), { secret: SECRET });
      expect(res.status).toBe(200);
      expect((await readRun(db.dataSource, runId)).state).toBe('SUCCEEDED');
    } finally {
      await other.close();
    }
  });

  async function edge(parent: SeededTask, child: SeededTask, condition = 'ON_SUCCESS'): Promise<void> {
    await db.dataSource.query('INSERT INTO task_dependencies (tenant_id, parent_task_id, child_task_id, `condition`, created_at) VALUES (?, ?, ?, ?, 0)', [
      TENANT,
      parent.id,
      child.id,
      condition,
    ]);
  }

  /** As the claim side + dispatcher would leave a run: ACCEPTED for the given attempt. */
  async function dispatched(runId: number, attempt: number): Promise<void> {
    const now = Date.now();
    await db.dataSource.query(
      "UPDATE runs SET state = 'ACCEPTED', attempt = ?, claimed_by = ?, executor_id = ?, dispatched_at = ?, accepted_at = ?, deadline_at = ? WHERE id = ?",
      [attempt, NODE_ID, executorId, now, now, now + 60_000, runId],
    );
  }

  /** Root → A, Root → B, A → D, B → D; the root's run SUCCEEDED, A's and B's ACCEPTED in its flow. */
  async function fanIn() {
    const Root = await seedTask(db.dataSource, { name: 'Root' });
    const A = await seedTask(db.dataSource, { name: 'A' });
    const B = await seedTask(db.dataSource, { name: 'B' });
    const D = await seedTask(db.dataSource, { name: 'D' });
    await edge(Root, A);
    await edge(Root, B);
    await edge(A, D);
    await edge(B, D);
    const root = await seedRun(db.dataSource, Root, { state: 'SUCCEEDED', claimedBy: null });
    const a = await acceptedRun(A, { flowId: root, parentRunId: root, cause: 'DEPENDENCY', fireKey: `f:${root}` });
    const b = await acceptedRun(B, { flowId: root, parentRunId: root, cause: 'DEPENDENCY', fireKey: `f:${root}` });
    return { root, A, B, D, a, b };
  }
});

describe('engine error answers (body parser off, as a cluster engine runs)', () => {
  const db = useTestDatabase('sqlite');
  let engine: DispatchSideApp;

  beforeAll(async () => {
    engine = await startDispatchSide(db.dataSource, {}, { rawBody: false });
  });
  afterAll(() => engine?.close());
  beforeEach(async () => {
    await db.clear();
    await seedTenant(db.dataSource);
  });

  it('unknown route, malformed JSON, too large, too deep, unexpected failure: each an ErrorBody, no stack trace', async () => {
    const unknown = await fetch(`${engine.url}/baton/nope`, { method: 'POST' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ statusCode: 404, code: 'NOT_FOUND', error: 'Not Found', message: 'Cannot POST /baton/nope' });

    const junk = await signedPost(engine.url, PATHS.callback, null, { rawBody: '{nope' });
    expect(junk).toMatchObject({ status: 400, body: { statusCode: 400, code: 'VALIDATION_FAILED', errors: [{ field: 'body', reason: 'malformed JSON' }] } });

    const huge = await signedPost(engine.url, PATHS.callback, null, { rawBody: JSON.stringify({ blob: 'x'.repeat(2 * 1024 * 1024) }) });
    expect(huge).toMatchObject({ status: 413, body: { statusCode: 413, code: 'PAYLOAD_TOO_LARGE', error: 'Payload Too Large', errors: [{ field: 'body', reason: expect.stringMatching(/^over \d+ bytes$/) }] } });

    const task = await seedTask(db.dataSource, { name: 'charge' });
    const runId = await seedRun(db.dataSource, task, { state: 'ACCEPTED', claimedBy: NODE_ID, acceptedAt: Date.now(), deadlineAt: Date.now() + 60_000 });
    const nested = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
    const deep = await signedPost(engine.url, PATHS.callback, null, { rawBody: `{"runId":${runId},"attempt":1,"tenantId":"${TENANT}","outcome":"SUCCEEDED","result":${nested}}` });
    expect(deep).toMatchObject({ status: 400, body: { statusCode: 400, code: 'VALIDATION_FAILED', errors: [{ field: 'body', reason: 'JSON nested deeper than 32 levels' }] } });
    expect((await readRun(db.dataSource, runId)).state).toBe('ACCEPTED');

    const service = engine.get(CallbacksService);
    const failing = vi.spyOn(service, 'handle').mockRejectedValueOnce(new Error('SELECT executor_secret FROM tenants failed'));
    const crash = await signedPost(engine.url, PATHS.callback, { runId, attempt: 1, tenantId: TENANT, progress: 1 });
    failing.mockRestore();
    expect(crash).toMatchObject({ status: 500, body: { statusCode: 500, code: 'INTERNAL', error: 'Internal Server Error', message: 'Internal server error' } });
    expect(JSON.stringify(crash.body)).not.toMatch(/SELECT|executor_secret|\.ts:\d+/);
  });
});
