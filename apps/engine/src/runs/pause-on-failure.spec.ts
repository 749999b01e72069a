import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inTransaction } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { alarms, seedRun, seedTask, seedTenant, startDispatchSide, TENANT, type DispatchSideApp, type SeededTask } from '../testing/dispatch-side-kit';
import { RunOutcomes } from './run-outcomes';

describe.each(TEST_DATABASES)('a task pauses itself after N failures in a row, on %s', (kind) => {
  const db = useTestDatabase(kind);
  let engine: DispatchSideApp;
  let outcomes: RunOutcomes;

  beforeAll(async () => {
    engine = await startDispatchSide(db.dataSource);
    outcomes = engine.get(RunOutcomes);
  });
  afterAll(async () => {
    await engine?.close();
  });
  beforeEach(async () => {
    await db.clear();
    await seedTenant(db.dataSource);
  });

  const retry = { maxAttempts: 1, backoffBaseMs: 1000, backoffMaxMs: 1000, jitter: 0 };
  let seq = 0;
  /** A run of the task that ends now with `to`. */
  async function end(task: SeededTask, to: 'FAILED' | 'SUCCEEDED' | 'TIMED_OUT'): Promise<void> {
    const runId = await seedRun(db.dataSource, task, { state: 'ACCEPTED', scheduledAt: Date.now() + ++seq, dispatchedAt: Date.now() });
    const ref = { runId, tenantId: TENANT, taskId: task.id, taskName: task.seed.name, attempt: 1, instant: 0, flowId: runId, retry };
    const now = Date.now();
    const ended = await inTransaction(db.dataSource, (em) =>
      outcomes.endAttempt(em, ref, to === 'SUCCEEDED' ? { to, resultJson: null } : { to, error: 'boom\n    at x (a.js:1:1)' }, { from: ['ACCEPTED'], now }),
    );
    expect(ended?.state).toBe(to);
  }
  const paused = async (task: SeededTask) => Number(((await db.dataSource.query(`SELECT paused FROM tasks WHERE id = ?`, [task.id])) as Array<{ paused: unknown }>)[0].paused) === 1;

  it('pauses after the Nth failure in a row, once, with a TASK_PAUSED alarm whatever its alarm types', async () => {
    const task = await seedTask(db.dataSource, { name: 'flaky', alarmTypes: ['FAILED'] });
    await db.dataSource.query(`UPDATE tasks SET pause_after_failures = 3 WHERE id = ?`, [task.id]);
    await end(task, 'FAILED');
    await end(task, 'SUCCEEDED'); // a success breaks the streak
    await end(task, 'FAILED');
    await end(task, 'TIMED_OUT');
    expect(await paused(task)).toBe(false);
    await end(task, 'FAILED');
    expect(await paused(task)).toBe(true);
    const raised = await alarms(db.dataSource, 'TASK_PAUSED');
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ severity: 'CRITICAL', message: expect.stringContaining('Task flaky paused itself: its last 3 run(s) failed') });
    await end(task, 'FAILED'); // already paused: no second pause, no second alarm
    expect(await alarms(db.dataSource, 'TASK_PAUSED')).toHaveLength(1);
  });

  it('never pauses a task without the setting', async () => {
    const task = await seedTask(db.dataSource, { name: 'steady' });
    for (let i = 0; i < 5; i++) await end(task, 'FAILED');
    expect(await paused(task)).toBe(false);
    expect(await alarms(db.dataSource, 'TASK_PAUSED')).toHaveLength(0);
  });
});
