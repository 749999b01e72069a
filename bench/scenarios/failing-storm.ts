import { MAX_RETRY_ATTEMPTS } from '@baton/domain';
import { TenantEntity } from '@baton/persistence';
import { Cluster, waitFor } from '../../test/cluster/support/cluster';
import { engineMetrics } from '../../test/cluster/support/engine-http';
import { invocationCheck } from '../../test/cluster/support/figures';
import { join } from 'node:path';
import { CpuMeter } from '../support/cpu-meter';
import { sqlTimingDiff, sqlTimingEnv, sqlTimingSnapshot, topStatements, type SqlTiming } from '../support/sql-timing';
import { machine, mariadbServerPid, RESULTS_DIR, writeResult } from '../support/infra';
import { option, parseEngineEnv, type Scenario } from '../support/scenario';
import { table } from '../support/table';
import { TriggerProbe } from '../support/trigger-probe';
import { openTwoTenants } from '../support/two-tenants';

/**
 * A hostile tenant's storm of failing runs: tenant A submits `--runs` runs (default 1,000) of a
 * task whose handler always fails, retried at once (`retry: { maxAttempts: 100, backoffBaseMs: 0 }`),
 * at its default quota; every attempt is a dispatch, a failure callback and a retry written.
 * Once every run's first attempt has failed and been written so, tenant B triggers a task `--rate`
 * times a second (default 10) for `--seconds` (default 10), as it does before the storm (alone):
 * B's trigger → handler start. The target is the
 * flooded key's (issue 42): B's p99 during ≤ 1.25 × alone. Cluster mode as a user runs it: one
 * console process, 2 engines at their defaults, one demo executor a tenant (the SDK's defaults),
 * everything through the REST API with API keys.
 */

const TARGET_RATIO = 1.25;

export const failingStorm: Scenario = {
  name: 'failing-storm',
  description: "a tenant's storm of always-failing runs retried at once: another tenant's trigger → start, alone and during the storm",
  options: "--runs=N (A's failing runs, default 1000) --rate=N (B's triggers a second, default 10) --seconds=N (default 10) --sql-timing (the engines' statements per attempt of A during the storm) --a-quota=N (A's ratePerSec and burst, per engine; default: the tenant defaults) --profile (the engines' V8 CPU profiles of the probe during the storm: bench/results/profiles/failing-storm<tag>/) --engine-env=BATON_A=1,… (both engines' settings beyond the defaults, e.g. BATON_RETRY_BUDGET_PER_SEC=0: no retry budget) --tag=…",
  quickSet: false,
  async run({ args, log }) {
    const runs = Number(option(args, 'runs') ?? 1_000);
    const rate = Number(option(args, 'rate') ?? 10);
    const seconds = Number(option(args, 'seconds') ?? 10);
    const tag = option(args, 'tag') ?? '';
    const aQuota = option(args, 'a-quota');
    const engineEnv = parseEngineEnv(option(args, 'engine-env'));
    const c = await Cluster.open('fstorm');
    let failed = true;
    try {
      const sqlTiming = args.includes('--sql-timing');
      const timingFile = (i: number) => join(c.dir, `sql-timing-engine-${i}.json`);
      const profileDir = args.includes('--profile') ? join(RESULTS_DIR, 'profiles', `failing-storm${tag}`) : null;
      const profiled: Record<string, string> = profileDir ? { NODE_OPTIONS: `-r ${join(__dirname, '..', 'support', 'cpu-profile.cjs')}`, BENCH_PROFILE_DIR: profileDir } : {};
      const { engines, aExecutor, bExecutor, console: consoleProc, post } = await openTwoTenants(c, (i) => {
        const timing = sqlTiming ? sqlTimingEnv(timingFile(i)) : {};
        const preloads = [profiled.NODE_OPTIONS, timing.NODE_OPTIONS].filter(Boolean).join(' ');
        return { ...engineEnv, ...profiled, ...timing, ...(preloads ? { NODE_OPTIONS: preloads } : {}) };
      });
      /** Both engines' statements so far, by digest, summed. */
      const enginesTiming = async (): Promise<SqlTiming> => {
        const sum: SqlTiming = {};
        for (const [i, e] of engines.entries()) {
          for (const [k, [n, ms]] of Object.entries(await sqlTimingSnapshot(e.pid, timingFile(i + 1)))) sum[k] = [(sum[k]?.[0] ?? 0) + n, (sum[k]?.[1] ?? 0) + ms];
        }
        return sum;
      };
      // The operator's remedy on a small shared cluster (MANUAL, quotas): A's dispatches, retries included, bounded below the cluster's capacity.
      if (aQuota !== undefined) await c.ds.getRepository(TenantEntity).update({ id: c.tenant.id }, { ratePerSec: Number(aQuota), burst: Number(aQuota) });
      const retry = { maxAttempts: MAX_RETRY_ATTEMPTS, backoffBaseMs: 0, backoffMaxMs: 0, jitter: 0 };
      const fragile = (await post('a', '/tasks', { name: 'fragile', executorApp: 'demo', handler: 'fail-n-times', trigger: { kind: 'MANUAL' }, retry })).id!;
      const report = (await post('b', '/tasks', { name: 'report', executorApp: 'demo', handler: 'noop', trigger: { kind: 'MANUAL' } })).id!;
      const probe = new TriggerProbe([{ name: 'b', trigger: async (n) => (await post('b', `/tasks/${report}/trigger`, { params: { n } })).id! }], () => new Map(c.records([bExecutor]).map((r) => [r.runId, r.at])));

      const mariadb = await mariadbServerPid(c.ds);
      const pids = { console: consoleProc.pid, ...Object.fromEntries(engines.map((e) => [e.name, e.pid])), 'executor-a': aExecutor.pid, 'executor-b': bExecutor.pid, ...(mariadb ? { mariadb } : {}) };
      /** CPU seconds a second of each process over a probe (how busy the machine was). */
      const cpuOf = (meter: CpuMeter, span: { from: number; to: number }) => Object.fromEntries(Object.entries(meter.used()).map(([k, v]) => [k, +(v / ((span.to - span.from) / 1000)).toFixed(2)]));

      await probe.run(rate, seconds); // warm-up: connections, the console's first requests, the engines' pools
      const aloneMeter = new CpuMeter(pids);
      const { figures: alone, ...aloneSpan } = await probe.run(rate, seconds);
      const aloneCpu = cpuOf(aloneMeter, aloneSpan);
      log(`  alone: B p50/p99 ${alone.b.p50}/${alone.b.p99} ms; CPU s/s ${JSON.stringify(aloneCpu)}`);

      const stormStarted = Date.now();
      for (let i = 0; i < runs; i += 1000) {
        const batch = Array.from({ length: Math.min(1000, runs - i) }, (_, j) => ({ taskId: fragile, params: { failures: 1e9, i: i + j } }));
        const { results } = await post('a', '/runs/batch', { runs: batch });
        if (results!.some((r) => r.status !== 201)) throw new Error(`storm batch at ${i}: ${JSON.stringify(results!.find((r) => r.status !== 201))}`);
      }
      // The storm is on once every run's first attempt has failed and been written so (a run at
      // attempt 2 or later): what follows is retries. The first attempts themselves are a burst A's
      // quota admitted (the noisy neighbour's case), their outcomes written in the second after.
      await waitFor(() => c.records([aExecutor]).length >= runs, { timeoutMs: 120_000, intervalMs: 500, what: `${runs} failed attempts of A` });
      const firstAttemptsOpen = async () => Number(((await c.ds.query(`SELECT COUNT(*) AS n FROM runs WHERE tenant_id = ? AND attempt = 1`, [c.tenant.id])) as Array<{ n: unknown }>)[0].n);
      await waitFor(async () => (await firstAttemptsOpen()) === 0, { timeoutMs: 120_000, intervalMs: 100, what: `the outcomes of A's ${runs} first attempts written` });
      log(`  storm: ${runs} runs of A submitted, each failed once and retried ${Date.now() - stormStarted} ms later`);
      /** Alarms the engines' relays published so far (a counted alarm published again counts again). */
      const published = async () => (await Promise.all(engines.map(async (e) => (await engineMetrics(e.url)).get('baton_engine_alarms_published_total') ?? 0))).reduce((a, b) => a + b, 0);
      const publishedBefore = await published();
      const timingBefore = sqlTiming ? await enginesTiming() : null;
      if (profileDir) for (const e of engines) process.kill(e.pid, 'SIGUSR2'); // the engines' CPU profiles cover the probe during the storm
      const duringMeter = new CpuMeter(pids);
      const { figures: during, ...span } = await probe.run(rate, seconds);
      const duringCpu = cpuOf(duringMeter, span);
      const attempts = c.records([aExecutor]).filter((r) => r.at >= span.from && r.at <= span.to).length;
      const attemptsPerSec = Math.round(attempts / ((span.to - span.from) / 1000));
      const publishesPerSec = +(((await published()) - publishedBefore) / ((span.to - span.from) / 1000)).toFixed(1);
      log(`  during: B p50/p99 ${during.b.p50}/${during.b.p99} ms; A's attempts meanwhile ${attempts} (${attemptsPerSec}/s), alarm publishes ${publishesPerSec}/s; CPU s/s ${JSON.stringify(duringCpu)}`);
      // The engines' statements an attempt of A during the probe (B's 10/s are a few % of them).
      const statements = timingBefore
        ? topStatements(sqlTimingDiff(await enginesTiming(), timingBefore), 20).map((s) => ({ ...s, perAttempt: +(s.count / Math.max(1, attempts)).toFixed(3), msPerAttempt: +(s.ms / Math.max(1, attempts)).toFixed(3) }))
        : null;
      if (statements) log(table(['per attempt', 'ms', 'statement'], statements.map((s) => [s.perAttempt, s.msPerAttempt, s.sql.slice(0, 110)])));

      const check = invocationCheck(c.records([bExecutor]), [...new Set(c.records([bExecutor]).map((r) => r.runId))]);
      const ratio = +(during.b.p99 / Math.max(1, alone.b.p99)).toFixed(2);
      log(
        table(
          ['series', 'alone p50 / p99 ms', 'during the storm p50 / p99 ms', 'p99 ratio', `target ≤ ${TARGET_RATIO}`],
          [['tenant B', `${alone.b.p50} / ${alone.b.p99}`, `${during.b.p50} / ${during.b.p99}`, ratio, ratio <= TARGET_RATIO ? 'met' : 'missed']],
        ),
      );
      log(`  B's handler starts ${c.records([bExecutor]).length}, duplicated ${check.duplicated.length}`);
      writeResult(`failing-storm${tag}.json`, {
        machine: machine(),
        plan: { runs, rate, seconds, retry, aQuota: aQuota === undefined ? 'default' : Number(aQuota), executors: "demo, the SDK's defaults", engines: "2, Baton's defaults", engineEnv },
        alone: alone.b,
        during: during.b,
        cpuSecondsPerSecond: { alone: aloneCpu, during: duringCpu },
        storm: { attemptsDuringProbe: attempts, attemptsPerSec, alarmPublishesPerSec: publishesPerSec, probeSeconds: +((span.to - span.from) / 1000).toFixed(1) },
        duplicated: check.duplicated.length,
        ratio,
        ...(statements ? { engineStatementsPerAttempt: statements } : {}),
      });
      failed = false;
      return [[`failing storm${tag}: B p99 alone → during`, `${alone.b.p99} → ${during.b.p99} ms (${ratio}×, target ≤ ${TARGET_RATIO}×; A ${attemptsPerSec} attempts/s)`]];
    } finally {
      await c.close(failed);
    }
  },
};
