import { describe, expect, it } from 'vitest';
import { isTerminal, type RunState } from '@baton/domain';
import { AlarmEntity } from '@baton/persistence';
import { useCluster, waitFor } from './support/cluster';
import { burstFigures, dispatchedCount, seedBurst, waitBurstEnded } from './support/burst';
import { countBy, printFigures } from './support/figures';

/**
 * Issue #3, "Done when" — kill -9 mid-burst: the burst of burst.e2e-spec.ts, and one engine
 * process is SIGKILLed once about a third of the runs were dispatched (the one holding the most
 * runs in memory at that moment). The survivors declare it dead, take its runs over and finish
 * every run; no handler is invoked twice for a run id (a run it had sent goes back to the same
 * executor, which de-duplicates by run and attempt).
 */
const RUNS = 2_000;

describe('cluster: kill -9 of an engine mid-burst (3 engines, 2 executors, MariaDB)', () => {
  const ctx = useCluster('kill9');

  it('the survivors finish every run, still exactly one handler invocation per run id', async () => {
    const c = ctx.cluster;
    const engines = await c.startEngines(3);
    await c.startExecutors(2);

    const { due, taskIds } = await seedBurst(c, RUNS);
    const atKillThreshold = await waitFor(
      async () => {
        const n = await dispatchedCount(c);
        return n >= RUNS / 3 ? n : false;
      },
      { timeoutMs: 60_000, intervalMs: 20, what: `a third of the ${RUNS} runs dispatched` },
    );

    // The victim: the engine holding the most runs not yet sent (CLAIMED) right now.
    const held: Array<{ owner: string; n: number | string }> = await c.ds.query(
      "SELECT claimed_by AS owner, COUNT(*) AS n FROM runs WHERE tenant_id = ? AND state = 'CLAIMED' GROUP BY claimed_by ORDER BY COUNT(*) DESC",
      [c.tenant.id],
    );
    const victim = engines.find((e) => e.nodeId === held[0]?.owner) ?? engines[0];
    const killedAt = Date.now();
    process.kill(victim.pid, 'SIGKILL');
    expect(await victim.exited).toBe('SIGKILL');
    const dispatchedAtKill = await dispatchedCount(c);

    // What the victim held when it died: its CLAIMED (in memory) and DISPATCHED (send in flight) runs.
    const heldByVictim: Array<{ id: number | string; state: string }> = await c.ds.query(
      "SELECT id, state FROM runs WHERE tenant_id = ? AND claimed_by = ? AND state IN ('CLAIMED', 'DISPATCHED')",
      [c.tenant.id, victim.nodeId],
    );
    const heldIds = heldByVictim.map((r) => Number(r.id));

    // Released (takeover) and re-claimed by a survivor (or already over: a DISPATCHED run whose
    // callback reached a survivor first ends with claimed_by still naming the victim), polled closely.
    let releasedAfterMs: number | null = null;
    const reclaimedAfterMs = await waitFor(
      async () => {
        if (heldIds.length === 0) return 'n/a (it held nothing)';
        const rows: Array<{ claimed_by: string | null; state: string }> = await c.ds.query(
          `SELECT claimed_by, state FROM runs WHERE id IN (${heldIds.map(() => '?').join(',')})`,
          heldIds,
        );
        const stillVictims = rows.filter((r) => r.claimed_by === victim.nodeId && (r.state === 'CLAIMED' || r.state === 'DISPATCHED')).length;
        if (stillVictims === 0 && releasedAfterMs === null) releasedAfterMs = Date.now() - killedAt;
        const reclaimed = rows.every((r) => isTerminal(r.state as RunState) || (r.state !== 'PENDING' && r.claimed_by !== victim.nodeId));
        return reclaimed ? Date.now() - killedAt : false;
      },
      { timeoutMs: 60_000, intervalMs: 50, what: `the ${heldIds.length} run(s) of ${victim.nodeId} re-claimed by a survivor` },
    );

    const runs = await waitBurstEnded(c, taskIds, RUNS, 120_000, { t0: killedAt, stallMs: 20_000 }).catch((err: Error) => {
      err.message = `victim ${victim.nodeId}, killed at t=0, takeover (release) at +${releasedAfterMs} ms, re-claimed at +${reclaimedAfterMs} ms; ${err.message}`;
      throw err;
    });
    const allFinishedAfterMs = Math.max(...runs.map((r) => r.updatedAt)) - killedAt;
    await c.settled(); // nothing held, sent or in flight: a late duplicate could only come from a bug
    const figures = await burstFigures(c, due, runs);
    const engineDown = await c.ds.getRepository(AlarmEntity).find({ where: { tenantId: c.tenant.id, type: 'ENGINE_DOWN' } });
    const victimRuns = runs.filter((r) => heldIds.includes(r.id));
    const takenOverBy = countBy(victimRuns, (r) => r.claimedBy);

    printFigures(`kill -9 mid-burst: ${RUNS} runs, 3 engines (one SIGKILLed), 2 executors`, {
      'victim': `${victim.nodeId} (pid ${victim.pid})`,
      'dispatched when the kill was decided / at the kill': `${atKillThreshold} / ${dispatchedAtKill}`,
      'victim held at the kill (CLAIMED + DISPATCHED)': `${heldIds.length} (${heldByVictim.filter((r) => r.state === 'CLAIMED').length} claimed, ${heldByVictim.filter((r) => r.state === 'DISPATCHED').length} dispatched)`,
      'kill → victim runs released (takeover) (ms)': releasedAfterMs,
      'kill → last victim run re-claimed by a survivor (ms)': reclaimedAfterMs,
      'kill → all runs finished (ms)': allFinishedAfterMs,
      'victim-held runs: final claimed_by (the victim = its callback ended it before the takeover)': takenOverBy,
      'ENGINE_DOWN alarms': engineDown.map((a) => a.message),
      'how the victim was found dead': engineDown.map((a) => (a.data as { cause?: string }).cause),
      'run states': figures.states,
      'makespan T → last callback recorded (ms)': figures.makespanToLastCallbackMs,
      'lateness dispatched_at − scheduled_at (ms)': figures.latenessMs,
      'runs by engine (claimed_by)': figures.byEngine,
      'runs by executor (executor_id)': figures.byExecutor,
      'handler invocations / duplicated / missing': `${figures.invocations} / ${figures.duplicated.length} / ${figures.missing.length}`,
    });

    expect(runs).toHaveLength(RUNS);
    expect(new Set(runs.map((r) => r.taskId)).size).toBe(RUNS);
    expect(figures.states).toEqual({ SUCCEEDED: RUNS });
    expect(figures.duplicated).toEqual([]);
    expect(figures.missing).toEqual([]);
    expect(figures.invocations).toBe(RUNS);
    // The victim's CLAIMED runs can only have been dispatched by a survivor.
    const claimedAtKill = new Set(heldByVictim.filter((r) => r.state === 'CLAIMED').map((r) => Number(r.id)));
    expect(victimRuns.filter((r) => claimedAtKill.has(r.id) && r.claimedBy === victim.nodeId)).toEqual([]);
    if (heldIds.length > 0) expect(engineDown.length).toBeGreaterThanOrEqual(1);
    // Found by its freed liveness lock (its killed process's session ended), not by 8 s of silence.
    expect(engineDown.map((a) => (a.data as { cause?: string }).cause)).toEqual(engineDown.map(() => 'SESSION_ENDED'));
  }, 180_000);
});
