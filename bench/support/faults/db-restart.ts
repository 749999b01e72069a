import { Cluster, sleep } from '../../../test/cluster/support/cluster';
import { percentile } from '../../../test/cluster/support/figures';
import { BURST_EXECUTOR_ENV } from '../../scenarios/burst';
import { PrivateMariadb } from '../private-mariadb';
import { dueTimes, faultResult, lastEnd, openThrottles, seedRuns, settle, waitAllEnded, type FaultResult } from './common';

/**
 * MariaDB restarted mid-run: a private MariaDB server on its own port (never the shared one),
 * 2 engines and 2 executors on it, a steady stream of noop runs (`rate` per second for
 * `spanMs`); `stopAfterMs` into the stream the server is stopped (`scripts/mariadb.sh stop`:
 * SIGTERM, clean shutdown) and started again at once. Recovery: server answering again → every
 * run due before that instant ended (the backlog of the outage drained; 0 when none waited),
 * lost runs aside.
 */
export async function dbRestart(options: { port: number; rate: number; spanMs: number; stopAfterMs: number }, log: (s: string) => void): Promise<FaultResult> {
  const server = await PrivateMariadb.open(options.port);
  log(`  private MariaDB on port ${options.port}`);
  try {
    const c = await Cluster.open('fdb', 'acme', { mysqlServerUrl: server.url });
    let failed = true;
    try {
      await openThrottles(c);
      const engines = await c.startEngines(2);
      await c.startExecutors(2, BURST_EXECUTOR_ENV);
      const n = Math.round((options.rate * options.spanMs) / 1000);
      const from = Date.now() + 3_000;
      await seedRuns(c, { handler: 'noop', dueAt: dueTimes(n, from, options.spanMs) });
      await sleep(from + options.stopAfterMs - Date.now());
      const stoppingAt = Date.now();
      await server.stop();
      const downAt = Date.now();
      await server.start();
      const upAt = Date.now();
      log(`  MariaDB stopped in ${downAt - stoppingAt} ms, started again in ${upAt - downAt} ms`);
      const waited = await waitAllEnded(c, n, { timeoutMs: options.spanMs + 120_000, stallMs: 45_000, log });
      const { runs, t } = await settle(c, stoppingAt, log);
      const dueBeforeUp = runs.filter((r) => r.scheduledAt <= upAt);
      const late = (rs: typeof runs) => rs.filter((r) => r.dispatchedAt !== null).map((r) => r.dispatchedAt! - r.scheduledAt);
      const result = faultResult(
        'MariaDB restarted mid-run',
        { engines: 2, executors: 2, runsPerSec: options.rate, streamMs: options.spanMs, port: options.port },
        runs,
        t,
        { recoveryMs: Math.max(0, lastEnd(dueBeforeUp) - upAt) },
        {
          stopMs: downAt - stoppingAt,
          startMs: upAt - downAt,
          outageMs: upAt - stoppingAt,
          enginesAliveAfter: engines.filter((e) => e.alive).length,
          dispatchLatenessOutsideOutageP99: percentile(late(runs.filter((r) => r.scheduledAt < stoppingAt - 1_000 || r.scheduledAt > upAt + 5_000)), 99),
          dispatchLatenessMax: Math.max(...late(runs)),
          allEnded: waited.complete,
        },
      );
      failed = result.lost + result.duplicated > 0;
      return result;
    } finally {
      await c.close(failed);
    }
  } finally {
    await server.stop();
  }
}
