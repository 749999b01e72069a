import { describe, expect, it } from 'vitest';
import { AlarmEntity, RunEntity } from '@baton/persistence';
import { useCluster, waitFor } from './support/cluster';
import { countBy, invocationCheck, printFigures } from './support/figures';
import { insertTasks, pendingRunRow } from './support/seed';

/** Runs due one every SPACING_MS, the first FIRST_IN_MS after they are written: all sent ahead (BATON_SEND_AHEAD_MS, 10 s) and held by the executors before the kill. */
const RUNS = 16;
const FIRST_IN_MS = 7_000;
const SPACING_MS = 150;

/**
 * kill -9 of an executor holding runs sent ahead of their instants (protocol 3): two demo
 * executors, one engine on MariaDB, a task of one attempt (`maxAttempts: 1`). Once every run is
 * ACCEPTED — held by an executor for its instant — the executor holding the most is SIGKILLed,
 * seconds before the first instant. The engine declares it DOWN, and the runs it held, whose
 * instants come past its sent-ahead lease, are handed back and sent to the survivor: every run
 * SUCCEEDED, each invoked once, none before its instant, none FAILED. Before the hand-back they
 * waited out the DOWN grace and ended FAILED ("went DOWN and the run did not report back within
 * the grace period"), never retried, though none had started.
 */
describe('cluster: kill -9 of an executor holding runs sent ahead (1 engine, 2 executors, MariaDB)', () => {
  const ctx = useCluster('kill-executor');

  it('what it held is handed back and run once on the survivor, not FAILED', async () => {
    const c = ctx.cluster;
    // Heartbeats every 1,000 ms (the ack's third of dead-after): a 2,000 ms lease, DOWN 3 s after the last one.
    await c.startEngines(1, { BATON_EXECUTOR_DEAD_AFTER_MS: '3000', BATON_EXECUTOR_GRACE_MS: '5000' });
    const executors = await c.startExecutors(2);
    const [taskId] = await insertTasks(c.ds, c.tenant, [{ name: 'held', trigger: { kind: 'MANUAL' }, handler: 'noop' }]); // maxAttempts 1 (the default)
    // A run due now first: once it ran, the engine's routing table has both executors UP, and sends runs ahead to them.
    await c.ds.getRepository(RunEntity).insert(pendingRunRow(c.tenant, taskId, Date.now(), 'warm-up'));
    await waitFor(async () => (await c.stateCounts([taskId])).SUCCEEDED === 1, { timeoutMs: 20_000, what: 'the warm-up run SUCCEEDED' });
    const now = Date.now();
    const rows = Array.from({ length: RUNS }, (_, i) => pendingRunRow(c.tenant, taskId, now + FIRST_IN_MS + i * SPACING_MS, `k:${i}`, { now }));
    await c.ds.getRepository(RunEntity).insert(rows);

    // Every run sent ahead and acknowledged: held by an executor for its instant.
    const held = await waitFor(
      async () => {
        const runs = (await c.runs([taskId])).filter((r) => r.fireKey !== 'warm-up');
        return runs.every((r) => r.state === 'ACCEPTED') ? runs : false;
      },
      { timeoutMs: FIRST_IN_MS - 2_000, intervalMs: 50, what: 'every run ACCEPTED (sent ahead, held by an executor)', detail: async () => JSON.stringify(await c.stateCounts([taskId])) },
    );
    const byExecutor = countBy(held, (r) => String(r.executorId));
    const [victimId] = Object.entries(byExecutor).sort((a, b) => b[1] - a[1])[0];
    const victimRow = await c.ds.query('SELECT url FROM executors WHERE id = ?', [Number(victimId)]);
    const victim = executors.find((e) => e.url.replace(/\/+$/, '') === String(victimRow[0].url).replace(/\/+$/, ''))!;
    const victimRuns = held.filter((r) => String(r.executorId) === victimId).map((r) => r.id);
    const killedAt = Date.now();
    expect(killedAt, 'killed before the first instant').toBeLessThan(now + FIRST_IN_MS);
    process.kill(victim.pid, 'SIGKILL');
    expect(await victim.exited).toBe('SIGKILL');

    const runs = await c.settled({ runIds: held.map((r) => r.id), timeoutMs: 60_000 });
    const records = c.records();
    const check = invocationCheck(records, runs.map((r) => r.id));
    const startOf = new Map(records.map((r) => [r.runId, r]));
    const handedBack: Array<{ run_id: number | string; state: string }> = await c.ds.query('SELECT run_id, state FROM run_attempts WHERE tenant_id = ? ORDER BY run_id', [c.tenant.id]);
    const alarms = await c.ds.getRepository(AlarmEntity).find({ where: { tenantId: c.tenant.id } });
    printFigures(`kill -9 of an executor holding ${victimRuns.length} of ${RUNS} runs sent ahead, ${now + FIRST_IN_MS - killedAt} ms before the first instant`, {
      'runs by state': JSON.stringify(countBy(runs, (r) => r.state)),
      'attempts handed back': handedBack.length,
      'handler start − scheduled (ms)': runs.map((r) => (startOf.get(r.id)?.at ?? NaN) - r.scheduledAt).join(', '),
      alarms: JSON.stringify(countBy(alarms, (a) => a.type)),
    });

    expect(runs.map((r) => r.state)).toEqual(runs.map(() => 'SUCCEEDED'));
    expect(check.duplicated).toEqual([]);
    expect(check.missing).toEqual([]);
    // The victim's runs went back unstarted (attempt 1 HANDED_BACK) and ran as attempt 2 on the survivor; none started before its instant.
    expect(handedBack.map((a) => [Number(a.run_id), a.state])).toEqual(victimRuns.map((id) => [id, 'HANDED_BACK']));
    for (const r of runs) {
      const start = startOf.get(r.id)!;
      expect(start.executor, `run ${r.id}`).not.toBe(victim.name);
      expect(start.attempt, `run ${r.id}`).toBe(victimRuns.includes(r.id) ? 2 : 1);
      expect(start.at, `run ${r.id} started before its instant`).toBeGreaterThanOrEqual(r.scheduledAt);
    }
    expect(alarms.map((a) => a.type)).not.toContain('FAILED');
  }, 120_000);
});
