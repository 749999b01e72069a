import { describe, expect, it } from 'vitest';
import { AlarmEntity } from '@baton/persistence';
import { useCluster, waitFor } from './support/cluster';
import { executorRunStatus } from './support/engine-http';
import { printFigures } from './support/figures';
import { insertTask } from './support/seed';

/**
 * Issue #3, "Done when" — timeouts stop the work, and what cannot start is alarmed:
 * - a task with a 1.5 s timeout running `long-running` for 60 s: the handler's AbortSignal
 *   fires (the executor reports the attempt ABORTED before its 60 s), the run is TIMED_OUT,
 *   and a TIMEOUT alarm row exists for it;
 * - a task whose executor app has no executor at all: its run cannot start, and a START_LATE
 *   alarm row exists for it once its start deadline passed.
 */
describe('cluster: timeout and start-late alarms (1 engine, 1 executor, MariaDB)', () => {
  const ctx = useCluster('timeout');

  it('a run past its timeout is aborted on the executor, TIMED_OUT, and alarmed; a run that cannot start raises START_LATE', async () => {
    const c = ctx.cluster;
    await c.startEngines(1);
    const [executor] = await c.startExecutors(1);

    const at = Math.ceil((Date.now() + 2_500) / 1000) * 1000;
    const slowTask = await insertTask(c.ds, c.tenant, {
      name: 'slow',
      trigger: { kind: 'ONCE', at },
      handler: 'long-running',
      params: { ms: 60_000 },
      timeoutMs: 1_500,
    });
    const strandedTask = await insertTask(c.ds, c.tenant, {
      name: 'stranded',
      trigger: { kind: 'ONCE', at },
      executorApp: 'nobody-runs-this',
      handler: 'noop',
      startDeadlineMs: 1_000,
    });

    const [slow] = await waitFor(
      async () => {
        const runs = await c.runs([slowTask]);
        return runs.length === 1 && runs[0].state === 'TIMED_OUT' ? runs : false;
      },
      { timeoutMs: 20_000, what: 'the slow run TIMED_OUT', detail: async () => JSON.stringify(await c.runs([slowTask])) },
    );
    const timeoutAlarms = await waitFor(
      async () => {
        const rows = await c.ds.getRepository(AlarmEntity).find({ where: { tenantId: c.tenant.id, type: 'TIMEOUT', runId: slow.id } });
        return rows.length > 0 ? rows : false;
      },
      { timeoutMs: 20_000, what: 'a TIMEOUT alarm row for the slow run' },
    );
    // The executor's own account of the attempt: aborted, before its 60 s of work.
    const status = await waitFor(
      async () => {
        const s = await executorRunStatus(executor.url, c.tenant, slow.id);
        return s.body.attempts?.[0]?.state === 'FINISHED' ? s : false;
      },
      { timeoutMs: 20_000, what: 'the executor to report the slow attempt finished' },
    );
    const attempt = status.body.attempts[0];

    const lateAlarms = await waitFor(
      async () => {
        const rows = await c.ds.getRepository(AlarmEntity).find({ where: { tenantId: c.tenant.id, type: 'START_LATE', taskId: strandedTask } });
        return rows.length > 0 ? rows : false;
      },
      { timeoutMs: 15_000, what: 'a START_LATE alarm row for the stranded task', detail: async () => JSON.stringify(await c.runs([strandedTask])) },
    );
    const [stranded] = await c.runs([strandedTask]);
    const invocations = c.records([executor]).filter((r) => r.runId === slow.id);

    printFigures('timeout: long-running 60 s with timeoutMs 1500; stranded: executor app with no executor, startDeadlineMs 1000', {
      'slow run': `${slow.state}, error "${slow.error}"`,
      'slow run: dispatched → finished (ms)': slow.finishedAt! - slow.dispatchedAt!,
      'executor: attempt': attempt,
      'executor: handler ran for (ms)': attempt.finishedAt! - attempt.startedAt!,
      'handler invocations (record file)': invocations.length,
      'TIMEOUT alarm': `${timeoutAlarms[0].severity} ${timeoutAlarms[0].message}`,
      'stranded run': `${stranded.state} (attempt ${stranded.attempt}), error "${stranded.error}"`,
      'START_LATE alarm': `${lateAlarms[0].severity} after ${lateAlarms[0].raisedAt - at} ms: ${lateAlarms[0].message}`,
    });

    expect(slow.state).toBe('TIMED_OUT');
    expect(invocations).toHaveLength(1);
    expect(attempt.outcome).toBe('ABORTED');
    expect(attempt.finishedAt! - attempt.startedAt!).toBeLessThan(60_000); // aborted, not run to its 60 s end
    expect(timeoutAlarms).toHaveLength(1);
    expect(lateAlarms).toHaveLength(1);
    expect(lateAlarms[0].runId).toBe(stranded.id);
    expect(stranded.dispatchedAt).toBeNull();
    expect(['PENDING', 'CLAIMED', 'RETRY_WAIT']).toContain(stranded.state);
  }, 90_000);
});
