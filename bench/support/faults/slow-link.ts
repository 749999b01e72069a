import { Cluster } from '../../../test/cluster/support/cluster';
import { engineMetrics, freePort } from '../../../test/cluster/support/engine-http';
import { percentile } from '../../../test/cluster/support/figures';
import { BURST_EXECUTOR_ENV } from '../../scenarios/burst';
import { SlowProxy } from '../slow-proxy';
import { dueTimes, faultResult, lastEnd, openThrottles, seedRuns, settle, waitAllEnded, type FaultResult } from './common';

/**
 * An executor behind a slow link: 1 engine, 2 executors; the second listens on a port of ours
 * and advertises (BATON_EXECUTOR_PUBLIC_URL) a delaying TCP proxy in front of it (SlowProxy,
 * `delayMs` each way), so every dispatch to it and its ack take 2 × delayMs more; its callbacks
 * to the engine are direct. A burst of `n` runs due at T: `noop`, or `sleep` of `sleepMs` — with
 * a link slower than half the dispatch timeout, a dispatch then times out while the executor
 * already runs it (the case where a re-dispatch elsewhere would run it twice). Reported per executor: runs
 * taken, send → ack and T → ended p50/p99; the engine's dispatch failures (timeouts: the
 * default BATON_DISPATCH_TIMEOUT_MS is 5 s). Recovery: T → last run ended.
 */
export async function slowLink(options: { n: number; delayMs: number; sleepMs?: number }, log: (s: string) => void): Promise<FaultResult> {
  const c = await Cluster.open('fsl');
  let proxy: SlowProxy | undefined;
  let failed = true;
  try {
    await openThrottles(c);
    const [engine] = await c.startEngines(1);
    const [fast] = await c.startExecutors(1, BURST_EXECUTOR_ENV);
    const port = await freePort();
    proxy = await SlowProxy.start(port, options.delayMs);
    const [slow] = await c.startExecutors(1, { ...BURST_EXECUTOR_ENV, BATON_EXECUTOR_PORT: String(port), BATON_EXECUTOR_PUBLIC_URL: proxy.url });
    const due = Math.ceil((Date.now() + 4_000) / 1000) * 1000;
    await seedRuns(c, options.sleepMs ? { handler: 'sleep', params: () => ({ ms: options.sleepMs }), dueAt: dueTimes(options.n, due) } : { handler: 'noop', dueAt: dueTimes(options.n, due) });
    const waited = await waitAllEnded(c, options.n, { timeoutMs: 120_000, stallMs: 30_000, log });
    const { runs, t } = await settle(c, due, log);
    const executorIds: Array<{ id: number; url: string }> = await c.ds.query('SELECT id, url FROM executors WHERE tenant_id = ?', [c.tenant.id]);
    const idOf = (url: string) => executorIds.find((e) => e.url.replace(/\/+$/, '') === url.replace(/\/+$/, ''))?.id;
    const per = (url: string) => {
      const mine = runs.filter((r) => r.executorId === idOf(url));
      const ack = mine.filter((r) => r.acceptedAt !== null && r.dispatchedAt !== null).map((r) => r.acceptedAt! - r.dispatchedAt!);
      const end = mine.filter((r) => r.finishedAt !== null).map((r) => r.updatedAt - due);
      return { runs: mine.length, sendToAckP50: percentile(ack, 50), sendToAckP99: percentile(ack, 99), endedP50: percentile(end, 50), endedP99: percentile(end, 99) };
    };
    const metrics = await engineMetrics(engine.url).catch(() => new Map<string, number>());
    const failures = Object.fromEntries([...metrics].filter(([k]) => k.startsWith('baton_engine_dispatch_failures_total')).map(([k, v]) => [k.replace('baton_engine_dispatch_failures_total', ''), v]));
    const result = faultResult(
      `slow executor link (${options.delayMs} ms each way${options.sleepMs ? `, ${options.sleepMs / 1000} s runs` : ''})`,
      { engines: 1, executors: 2, burst: options.n, delayMs: options.delayMs, handler: options.sleepMs ? `sleep ${options.sleepMs} ms` : 'noop', dispatchTimeoutMs: 5000 },
      runs,
      t,
      { recoveryMs: lastEnd(runs) - due },
      { fast: per(fast.url), slow: per(slow.url), dispatchFailures: failures, allEnded: waited.complete },
    );
    failed = result.lost + result.duplicated > 0;
    return result;
  } finally {
    await c.close(failed);
    await proxy?.close();
  }
}
