import { AlarmEntity } from '@baton/persistence';
import { Cluster, sleep, waitFor, type InvocationRecord } from '../../../test/cluster/support/cluster';
import { dueTimes, faultResult, lastEnd, openThrottles, seedRuns, settle, waitAllEnded, type FaultResult } from './common';

/**
 * SIGKILL of an executor with runs in flight: 2 engines, 2 executors of 16 workers each,
 * `n` runs of `sleep` (`sleepMs`) due at once, retry policy 3 attempts (backoff 500 ms). Once
 * both executors run handlers, one is killed with SIGKILL. The engines' watchdog marks it DOWN
 * after BATON_EXECUTOR_DEAD_AFTER_MS of silence and, BATON_EXECUTOR_GRACE_MS later, settles its
 * runs (RETRY_WAIT → attempt 2 on the survivor, or FAILED when no attempt is left).
 *
 * Counted from the record files, an invocation on the victim having completed iff it started at
 * least `sleepMs` before the kill (the handler is a plain sleep):
 * - duplicated: a run whose handler completed twice (e.g. done on the victim, its callback not
 *   yet sent when it died, then run again) or one attempt invoked twice;
 * - re-run: a run started again after its first execution was cut off by the kill — the
 *   at-least-once semantics of a dead executor, not a duplicate;
 * - lost: a run never ended. Recovery: kill → the last run ended.
 */
export const EXECUTOR_FAST_DOWN = { BATON_EXECUTOR_DEAD_AFTER_MS: '3000', BATON_EXECUTOR_GRACE_MS: '2000' };

export async function executorKill(options: { n: number; sleepMs: number; engineEnv: Record<string, string>; label: string }, log: (s: string) => void): Promise<FaultResult> {
  const c = await Cluster.open('fxk');
  let failed = true;
  try {
    await openThrottles(c);
    await c.startEngines(2, options.engineEnv);
    const [a, b] = await c.startExecutors(2, { BATON_EXECUTOR_CONCURRENCY: '16', BATON_EXECUTOR_QUEUE_LIMIT: '2000' });
    const due = Date.now() + 3_000;
    await seedRuns(c, { handler: 'sleep', dueAt: dueTimes(options.n, due), params: () => ({ ms: options.sleepMs }), retry: { maxAttempts: 3, backoffBaseMs: 500, backoffMaxMs: 2_000 } });
    // Both executors busy: then the victim is the one with the most runs accepted.
    await waitFor(() => c.records([a]).length > 0 && c.records([b]).length > 0, { timeoutMs: 30_000, intervalMs: 50, what: 'both executors running handlers' });
    await sleep(options.sleepMs / 3);
    const held: Array<{ url: string; n: number | string }> = await c.ds.query(
      "SELECT e.url, COUNT(*) AS n FROM runs r JOIN executors e ON e.id = r.executor_id WHERE r.tenant_id = ? AND r.state IN ('DISPATCHED','ACCEPTED','RUNNING') GROUP BY e.url ORDER BY COUNT(*) DESC",
      [c.tenant.id],
    );
    const victim = [a, b].find((e) => e.url.replace(/\/+$/, '') === held[0]?.url.replace(/\/+$/, '')) ?? a;
    const inFlight = Number(held.find((h) => h.url.replace(/\/+$/, '') === victim.url.replace(/\/+$/, ''))?.n ?? 0);
    const killedAt = Date.now();
    process.kill(victim.pid, 'SIGKILL');
    await victim.exited;
    log(`  killed ${victim.name} (pid ${victim.pid}) with ${inFlight} runs in flight`);

    const waited = await waitAllEnded(c, options.n, { timeoutMs: 180_000, stallMs: 60_000, log });
    const completed = (r: InvocationRecord) => r.executor !== victim.name || r.at + options.sleepMs <= killedAt;
    const { runs, records, t } = await settle(c, killedAt, log, completed);
    const alarms = await c.ds.getRepository(AlarmEntity).find({ where: { tenantId: c.tenant.id } });
    const firstOf = (type: string) => Math.min(...alarms.filter((x) => x.type === type).map((x) => x.raisedAt)) - killedAt;
    const victimRuns = new Set(records.filter((r) => r.executor === victim.name).map((r) => r.runId));
    const result = faultResult(
      `executor SIGKILL, runs in flight (${options.label})`,
      { engines: 2, executors: 2, runs: options.n, sleepMs: options.sleepMs, maxAttempts: 3, ...options.engineEnv },
      runs,
      t,
      { recoveryMs: lastEnd(runs) - killedAt },
      {
        victim: victim.name,
        victimInFlight: inFlight,
        victimInvoked: victimRuns.size,
        victimCompletedBeforeKill: records.filter((r) => r.executor === victim.name && completed(r)).length,
        executorDownAfterMs: firstOf('EXECUTOR_DOWN'),
        firstRetryAfterMs: firstOf('RETRYING'),
        failedAlarms: alarms.filter((x) => x.type === 'FAILED').length,
        endedOnAttempt: Object.fromEntries([1, 2, 3].map((k) => [k, runs.filter((r) => r.attempt === k).length])),
        allEnded: waited.complete,
      },
    );
    failed = result.lost + result.duplicated > 0;
    return result;
  } finally {
    await c.close(failed);
  }
}
