import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inTransaction } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { seedRun, seedTask, seedTenant, startDispatchSide, TENANT, type DispatchSideApp, type SeededTask } from '../testing/dispatch-side-kit';
import { RunOutcomes } from './run-outcomes';

const OTHER = 'globex';
/** The decisions' time in the first test, a minute later in each next one (the budgets live in the engine's memory, across its tests): fixed, so each due time below is exact. */
let NOW = 1_900_000_000_000 - 60_000;

describe.each(TEST_DATABASES)("a tenant's retry budget paces a storm of retries, on %s", (kind) => {
  const db = useTestDatabase(kind);
  let engine: DispatchSideApp;
  let outcomes: RunOutcomes;

  beforeAll(async () => {
    // 5 retries a second and 20 % of the first attempts a second: small numbers keep the test's rows few.
    engine = await startDispatchSide(db.dataSource, { retryBudgetPercent: 20, retryBudgetPerSec: 5 });
    outcomes = engine.get(RunOutcomes);
  });
  afterAll(async () => {
    await engine?.close();
  });
  beforeEach(async () => {
    NOW += 60_000;
    await db.clear();
    await seedTenant(db.dataSource);
    await seedTenant(db.dataSource, { id: OTHER });
  });

  /** Retried at once, a hundred times: the storm of a task that always fails. */
  const retry = { maxAttempts: 100, backoffBaseMs: 0, backoffMaxMs: 0, jitter: 0 };
  let seq = 0;

  const pacedSoFar = async () => (await engine.metrics.retriesPaced.get()).values.reduce((total, v) => total + v.value, 0);

  /** A run of the task whose attempt `attempt` ends at NOW with `to`: what it became, and its due time when retried. */
  async function end(task: SeededTask, to: 'FAILED' | 'SUCCEEDED', attempt: number, policy = retry): Promise<{ state: string; dueAt?: number }> {
    const runId = await seedRun(db.dataSource, task, { state: 'ACCEPTED', attempt, scheduledAt: NOW - 60_000 + ++seq, dispatchedAt: NOW - 1_000 });
    const ref = { runId, tenantId: task.seed.tenantId, taskId: task.id, taskName: task.seed.name, attempt, instant: NOW - 60_000, flowId: runId, retry: policy };
    const ended = await inTransaction(db.dataSource, (em) => outcomes.endAttempt(em, ref, to === 'SUCCEEDED' ? { to, resultJson: null } : { to, error: 'boom' }, { from: ['ACCEPTED'], now: NOW }));
    expect(ended).not.toBeNull();
    const [row] = (await db.dataSource.query(`SELECT due_at FROM runs WHERE id = ?`, [runId])) as Array<{ due_at: unknown }>;
    return ended!.state === 'RETRY_WAIT' ? { state: ended!.state, dueAt: Number(row.due_at) } : { state: ended!.state };
  }

  it("retries past the budget's rate are due later, one each 1/rate s after a second's burst, written so in the run row", async () => {
    const task = await seedTask(db.dataSource, { name: 'always-fails' });
    const pacedBefore = await pacedSoFar();
    const due: number[] = [];
    // Second attempts failing: they earn nothing, so the rate is the floor, 5, and 5 go at once.
    for (let i = 0; i < 8; i++) due.push((await end(task, 'FAILED', 2)).dueAt!);
    expect(due).toEqual([NOW, NOW, NOW, NOW, NOW, NOW + 200, NOW + 400, NOW + 600]);
    const raised = (await db.dataSource.query(`SELECT message FROM alarms WHERE tenant_id = ? ORDER BY id`, [TENANT])) as Array<{ message: string }>;
    expect(raised.at(-1)?.message).toContain("retrying as attempt 3 in 600 ms (600 ms of it the tenant's retry budget)");
    expect((await pacedSoFar()) - pacedBefore).toBe(3);
  });

  it('first attempts raise the rate by their share, whatever their outcome', async () => {
    const task = await seedTask(db.dataSource, { name: 'mostly-fine' });
    for (let i = 0; i < 40; i++) await end(task, 'SUCCEEDED', 1);
    // Failed for good (no retry of their own): they count as much as the successes.
    for (let i = 0; i < 10; i++) expect(await end(task, 'FAILED', 1, { ...retry, maxAttempts: 1 })).toEqual({ state: 'FAILED' });
    // 50 first attempts in the window: 5 + 0.2 × 50 ÷ 10 s = 6 a second, 6 at once.
    const due: number[] = [];
    for (let i = 0; i < 7; i++) due.push((await end(task, 'FAILED', 2)).dueAt!);
    expect(due.slice(0, 6)).toEqual(Array(6).fill(NOW));
    expect(due[6]).toBe(NOW + Math.ceil(1_000 / 6));
  });

  it("first attempts ended together on the successes' fast path raise the rate too", async () => {
    const task = await seedTask(db.dataSource, { name: 'fast-path' });
    const attempts: Array<Parameters<RunOutcomes['endSucceededTogether']>[1][number]> = [];
    for (let i = 0; i < 50; i++) {
      const runId = await seedRun(db.dataSource, task, { state: 'ACCEPTED', attempt: 1, scheduledAt: NOW - 60_000 + ++seq, dispatchedAt: NOW - 1_000 });
      attempts.push({ runId, attempt: 1, resultJson: null, startedAt: NOW - 500, finishedAt: NOW, finishedClock: 'executor', shardOf: null, tenantId: TENANT });
    }
    await inTransaction(db.dataSource, (em) => outcomes.endSucceededTogether(em, attempts, { from: ['ACCEPTED'], now: NOW, expectAll: true }));
    // As after 50 first attempts ended one by one: 5 + 0.2 × 50 ÷ 10 s = 6 a second, 6 at once.
    const due: number[] = [];
    for (let i = 0; i < 7; i++) due.push((await end(task, 'FAILED', 2)).dueAt!);
    expect(due.slice(0, 6)).toEqual(Array(6).fill(NOW));
    expect(due[6]).toBe(NOW + Math.ceil(1_000 / 6));
  });

  it("one tenant's storm leaves another tenant's retries at their time", async () => {
    const storm = await seedTask(db.dataSource, { name: 'storm' });
    const calm = await seedTask(db.dataSource, { tenantId: OTHER, name: 'calm' });
    for (let i = 0; i < 20; i++) await end(storm, 'FAILED', 2);
    expect((await end(storm, 'FAILED', 2)).dueAt).toBeGreaterThan(NOW);
    for (let i = 0; i < 5; i++) expect((await end(calm, 'FAILED', 2)).dueAt).toBe(NOW);
  });

  it("an attempt its executor's death ended is retried at its time, past the budget", async () => {
    const task = await seedTask(db.dataSource, { name: 'on-a-dead-executor' });
    for (let i = 0; i < 10; i++) await end(task, 'FAILED', 2);
    const runId = await seedRun(db.dataSource, task, { state: 'ACCEPTED', attempt: 2, scheduledAt: NOW - 60_000 + ++seq, dispatchedAt: NOW - 1_000 });
    const ref = { runId, tenantId: TENANT, taskId: task.id, taskName: task.seed.name, attempt: 2, instant: NOW - 60_000, flowId: runId, retry };
    const ended = await inTransaction(db.dataSource, (em) => outcomes.endAttempt(em, ref, { to: 'FAILED', error: 'executor went DOWN' }, { from: ['ACCEPTED'], now: NOW, budgeted: false }));
    expect(ended).toEqual({ state: 'RETRY_WAIT', nextAttempt: 3, dueAt: NOW });
  });

  it('the last attempt still ends the run for good, paced or not', async () => {
    const task = await seedTask(db.dataSource, { name: 'last' });
    for (let i = 0; i < 10; i++) await end(task, 'FAILED', 2);
    expect(await end(task, 'FAILED', 100)).toEqual({ state: 'FAILED' });
  });
});
