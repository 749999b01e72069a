import { AlarmEntity } from '@baton/persistence';
import { Cluster, ENGINE_TEST_ENV, sleep, waitFor } from '../../../test/cluster/support/cluster';
import type { EngineProcess } from '../../../test/cluster/support/processes';
import { dispatchedCount } from '../../../test/cluster/support/burst';
import { countBy, percentile } from '../../../test/cluster/support/figures';
import { BURST_EXECUTOR_ENV } from '../../scenarios/burst';
import { dueTimes, faultResult, lastEnd, openThrottles, seedRuns, settle, waitAllEnded, type FaultResult } from './common';

/**
 * SIGKILL of an engine mid-burst: 2 engines, 2 executors, `n` noop runs due at T; at T + 0.5 s
 * (issue 11 item 5), the engine holding the most runs not yet ended (CLAIMED in memory or
 * DISPATCHED, send in flight) is killed with SIGKILL. Lateness (handler start − T) of all the
 * runs is reported, to hold against the same burst without a kill (`npm run bench -- burst`). Takeover: kill → none of the runs it held
 * is still CLAIMED/DISPATCHED by it (released, re-claimed by the survivor, or ended by a
 * callback the survivor took). Recovery: kill → the last run ended.
 */

/** The engine defaults (apps/engine/src/config/engine-config.ts), to measure the takeover they give. */
export const ENGINE_DEFAULT_TIMING: Record<string, string> = {
  BATON_HEARTBEAT_MS: '2000',
  BATON_ENGINE_DEAD_AFTER_MS: '8000',
  BATON_LEASE_MS: '15000',
  BATON_WATCHDOG_INTERVAL_MS: '500',
};

export async function engineKill(n: number, timing: 'test' | 'default', log: (s: string) => void): Promise<FaultResult> {
  const env = timing === 'default' ? ENGINE_DEFAULT_TIMING : {};
  const c = await Cluster.open(`fk${timing[0]}`);
  let failed = true;
  try {
    await openThrottles(c);
    const engines = await c.startEngines(2, env);
    await c.startExecutors(2, BURST_EXECUTOR_ENV);
    const due = Math.ceil((Date.now() + 4_000 + n * 0.4) / 1000) * 1000;
    const runIds = await seedRuns(c, { handler: 'noop', dueAt: dueTimes(n, due) });
    await sleep(Math.max(0, due + KILL_AFTER_T_MS - Date.now()));
    const dispatchedAtKill = await dispatchedCount(c);

    const { victim, killedAt, heldIds, heldRows } = await killBusiestEngine(c, engines);
    log(`  killed ${victim.nodeId} (pid ${victim.pid}) holding ${heldIds.length} runs (${JSON.stringify(countBy(heldRows, (r) => r.state))})`);
    const takeoverMs = await engineTakeover(c, victim, heldIds, killedAt);
    const waited = await waitAllEnded(c, n, { timeoutMs: 120_000, stallMs: 30_000, log });
    const { runs, t } = await settle(c, killedAt, log);
    const engineDown = await c.ds.getRepository(AlarmEntity).find({ where: { tenantId: c.tenant.id, type: 'ENGINE_DOWN' } });
    const result = faultResult(
      `engine SIGKILL mid-burst (${timing} timing)`,
      { engines: 2, executors: 2, burst: n, ...pick({ ...ENGINE_TEST_ENV, ...env }, ['BATON_HEARTBEAT_MS', 'BATON_ENGINE_DEAD_AFTER_MS', 'BATON_LEASE_MS', 'BATON_WATCHDOG_INTERVAL_MS']) },
      runs,
      t,
      { takeoverMs, recoveryMs: lastEnd(runs) - killedAt },
      {
        killedAfterTMs: killedAt - due,
        dispatchedAtKill,
        startedLateness: latenessStats(runs.map((r) => (r.startedAt === null ? NaN : r.startedAt - r.scheduledAt)).filter((v) => !Number.isNaN(v))),
        victim: victim.nodeId,
        victimHeld: heldIds.length,
        victimHeldByState: countBy(heldRows, (r) => r.state),
        engineDownAlarmAfterMs: engineDown.map((a) => a.raisedAt - killedAt),
        victimRunsFinalOwner: countBy(runs.filter((r) => heldIds.includes(r.id)), (r) => r.claimedBy),
        allEnded: waited.complete,
        runIds: [runIds[0], runIds[runIds.length - 1]],
      },
    );
    failed = result.lost + result.duplicated > 0;
    return result;
  } finally {
    await c.close(failed);
  }
}

/**
 * SIGKILLs the engine holding the most of the tenant's runs not yet ended (CLAIMED in memory or
 * DISPATCHED) and waits for its exit; returns it, when, and the runs it held.
 */
export async function killBusiestEngine(c: Cluster, engines: readonly EngineProcess[]) {
  const held: Array<{ owner: string; n: number | string }> = await c.ds.query(
    "SELECT claimed_by AS owner, COUNT(*) AS n FROM runs WHERE tenant_id = ? AND state IN ('CLAIMED','DISPATCHED') GROUP BY claimed_by ORDER BY COUNT(*) DESC",
    [c.tenant.id],
  );
  const victim = engines.find((e) => e.nodeId === held[0]?.owner) ?? engines[0];
  const killedAt = Date.now();
  process.kill(victim.pid, 'SIGKILL');
  await victim.exited;
  const heldRows: Array<{ id: number | string; state: string }> = await c.ds.query(
    "SELECT id, state FROM runs WHERE tenant_id = ? AND claimed_by = ? AND state IN ('CLAIMED','DISPATCHED')",
    [c.tenant.id, victim.nodeId],
  );
  return { victim, killedAt, heldRows, heldIds: heldRows.map((r) => Number(r.id)) };
}

/** Takeover: kill → none of the runs the victim held is still CLAIMED/DISPATCHED by it (ms; null when it held none). */
export async function engineTakeover(c: Cluster, victim: EngineProcess, heldIds: readonly number[], killedAt: number): Promise<number | null> {
  if (heldIds.length === 0) return null;
  return waitFor(
    async () => {
      const rows: Array<{ n: number | string }> = await c.ds.query(
        `SELECT COUNT(*) AS n FROM runs WHERE claimed_by = ? AND state IN ('CLAIMED','DISPATCHED') AND id IN (${heldIds.map(() => '?').join(',')})`,
        [victim.nodeId, ...heldIds],
      );
      return Number(rows[0].n) === 0 ? Date.now() - killedAt : false;
    },
    { timeoutMs: 120_000, intervalMs: 50, what: `the runs of ${victim.nodeId} taken over` },
  );
}

/** When the victim is killed, after the instant T the burst is due. */
const KILL_AFTER_T_MS = 500;

function latenessStats(values: number[]): { p50: number; p99: number; max: number } {
  return { p50: percentile(values, 50), p99: percentile(values, 99), max: values.length ? Math.max(...values) : NaN };
}

function pick(env: Record<string, string>, keys: string[]): Record<string, string> {
  return Object.fromEntries(keys.map((k) => [k, env[k]]));
}
