import { Cluster, waitFor } from '../../test/cluster/support/cluster';
import { invocationCheck, latenessSummary } from '../../test/cluster/support/figures';
import { machine, writeResult } from '../support/infra';
import { option, type Scenario } from '../support/scenario';
import { table } from '../support/table';
import { TriggerProbe, type ProbeFigures } from '../support/trigger-probe';
import { openTwoTenants } from '../support/two-tenants';

/**
 * One concurrency key flooded (issue 42's target): tenant A's task `sync` bounds its runs to one at
 * a time per customer (`concurrency: { key: "customerId", limit: 1, onLimit: QUEUE }`); `--flood`
 * runs (default 10,000) of customer `hot` are submitted at once (POST /api/runs/batch, 1,000 a
 * call) and wait HELD, as rows. Meanwhile other customers' runs of the same task, and tenant B's
 * runs of an unbounded task, are submitted one trigger at a time, `--rate` a second each (default
 * 20) for `--seconds` (default 30), as they are before the flood (alone): 600 starts a series, so
 * its p99 is not its second slowest start (at 10 a second for 10 s the ratios swung 0.9–1.7 × run
 * to run). Each probe run's
 * lateness is its handler's start (the demo executor's own record) − when its trigger was sent;
 * the target: p99 during the flood ≤ 1.25 × alone, for A's other keys and for B. Cluster mode as a
 * user runs it: one console process, 2 engines at their defaults, one demo executor per tenant
 * (the SDK's defaults), everything through the REST API with API keys.
 */

const KEY_LIMIT = { key: 'customerId', limit: 1, onLimit: 'QUEUE' } as const;
const TARGET_RATIO = 1.25;
const WARM_UP_S = 10;

export const floodedKey: Scenario = {
  name: 'flooded-key',
  description: "one concurrency key flooded with 10,000 held runs: the lateness of the task's other keys and of another tenant, alone and during the flood",
  options: '--flood=N (held runs of the hot key, default 10000) --rate=N (probe triggers per second per series, default 20) --seconds=N (default 30) --tag=…',
  quickSet: false,
  async run({ args, log }) {
    const flood = Number(option(args, 'flood') ?? 10_000);
    const rate = Number(option(args, 'rate') ?? 20);
    const seconds = Number(option(args, 'seconds') ?? 30);
    const tag = option(args, 'tag') ?? '';
    const c = await Cluster.open('fkey');
    let failed = true;
    try {
      const { aExecutor, bExecutor, post } = await openTwoTenants(c);
      const sync = (await post('a', '/tasks', { name: 'sync', executorApp: 'demo', handler: 'noop', trigger: { kind: 'MANUAL' }, concurrency: KEY_LIMIT })).id!;
      const report = (await post('b', '/tasks', { name: 'report', executorApp: 'demo', handler: 'noop', trigger: { kind: 'MANUAL' } })).id!;

      /** `rate` triggers a second of A's other customers and of B, side by side: each one's trigger → handler start (ms). */
      const probe = new TriggerProbe(
        [
          { name: 'aOther', trigger: async (n) => (await post('a', `/tasks/${sync}/trigger`, { params: { customerId: `cold-${n}` } })).id! },
          { name: 'b', trigger: async (n) => (await post('b', `/tasks/${report}/trigger`, { params: { n } })).id! },
        ],
        () => new Map(c.records([aExecutor, bExecutor]).map((r) => [r.runId, r.at])),
      );

      await probe.run(rate, Math.min(seconds, WARM_UP_S)); // warm-up: connections, the console's first requests, the engines' pools
      const { figures: alone, bySeries: aloneRuns } = await probe.run(rate, seconds);
      log(`  alone: A's other keys p50/p99 ${alone.aOther.p50}/${alone.aOther.p99} ms, B ${alone.b.p50}/${alone.b.p99} ms`);
      const aloneSteps = { aOther: await probeSteps(c, aloneRuns.aOther), b: await probeSteps(c, aloneRuns.b) };
      for (const [name, steps] of Object.entries(aloneSteps)) log(`  alone, ${name}'s way, p50 / p99 ms: ${Object.entries(steps).map(([step, f]) => `${step} ${f.p50} / ${f.p99}`).join('; ')}`);

      const floodStarted = Date.now();
      for (let i = 0; i < flood; i += 1000) {
        const runs = Array.from({ length: Math.min(1000, flood - i) }, (_, j) => ({ taskId: sync, params: { customerId: 'hot', i: i + j } }));
        const { results } = await post('a', '/runs/batch', { runs });
        if (results!.some((r) => r.status !== 201)) throw new Error(`flood batch at ${i}: ${JSON.stringify(results!.find((r) => r.status !== 201))}`);
      }
      const heldCount = async () => Number(((await c.ds.query("SELECT COUNT(*) AS n FROM runs WHERE task_id = ? AND state = 'HELD'", [sync])) as Array<{ n: unknown }>)[0].n);
      // The flood is claimed and held (a claim turn admits the key's one place and holds the rest) before the probe.
      await waitFor(async () => (await heldCount()) >= flood * 0.9, { timeoutMs: 120_000, intervalMs: 250, what: `${flood * 0.9} of the hot key's runs HELD`, detail: async () => `${await heldCount()} HELD` });
      const heldAtStart = await heldCount();
      log(`  flood: ${flood} runs of key 'hot' submitted, ${heldAtStart} HELD ${Date.now() - floodStarted} ms later`);
      const { figures: during, ...span } = await probe.run(rate, seconds);
      const heldAtEnd = await heldCount();
      // The hot key's own runs went on meanwhile, one at a time: its starts in the probe's span.
      const hotStarts = c.records([aExecutor]).filter((r) => r.at >= span.from && r.at <= span.to && !span.runIds.has(r.runId)).length;
      const handOver = await handOverSteps(c, sync, span);
      log(`  during: A's other keys p50/p99 ${during.aOther.p50}/${during.aOther.p99} ms, B ${during.b.p50}/${during.b.p99} ms; the hot key: ${hotStarts} started meanwhile (${(hotStarts / ((span.to - span.from) / 1000)).toFixed(1)}/s), ${heldAtEnd} still HELD`);
      log(`  the hot key's hand-over, p50 / p99 ms: ${Object.entries(handOver).map(([step, f]) => `${step} ${f.p50} / ${f.p99}`).join('; ')}`);

      // Every run started once: the probes' and the hot key's so far (the rest still wait their turn).
      const records = c.records([aExecutor, bExecutor]);
      const check = invocationCheck(records, [...new Set(records.map((r) => r.runId))]);
      const ratio = (d: ProbeFigures, a: ProbeFigures) => +(d.p99 / Math.max(1, a.p99)).toFixed(2);
      const rows = [
        ["A's other keys", alone.aOther, during.aOther],
        ['tenant B', alone.b, during.b],
      ] as const;
      log(
        table(
          ['series', 'alone p50 / p99 ms', 'during the flood p50 / p99 ms', 'p99 ratio', `target ≤ ${TARGET_RATIO}`],
          rows.map(([name, a, d]) => [name, `${a.p50} / ${a.p99}`, `${d.p50} / ${d.p99}`, ratio(d, a), ratio(d, a) <= TARGET_RATIO ? 'met' : 'missed']),
        ),
      );
      log(`  handler starts ${records.length}, duplicated ${check.duplicated.length}`);
      writeResult(`flooded-key${tag}.json`, {
        machine: machine(),
        plan: { flood, rate, seconds, keyLimit: KEY_LIMIT, executors: "demo, the SDK's defaults", engines: "2, Baton's defaults" },
        alone: { aOther: alone.aOther, b: alone.b },
        during: { aOther: during.aOther, b: during.b },
        aloneSteps,
        hotKey: { heldAtProbeStart: heldAtStart, heldAtProbeEnd: heldAtEnd, startedDuringProbe: hotStarts, probeSeconds: +((span.to - span.from) / 1000).toFixed(1), handOver },
        duplicated: check.duplicated.length,
        ratios: { aOther: ratio(during.aOther, alone.aOther), b: ratio(during.b, alone.b) },
      });
      failed = false;
      return rows.map(([name, a, d]) => [`flooded key${tag}: ${name} p99 alone → during`, `${a.p99} → ${d.p99} ms (${ratio(d, a)}×, target ≤ ${TARGET_RATIO}×)`]);
    } finally {
      await c.close(failed);
    }
  },
};

/**
 * Where probe runs' time went, from their rows: the run written (created_at, the console's
 * transaction) → its DISPATCHED mark (the engine's claim, a key's admission, the mark) → its
 * handler's start (started_at, the executor's). The trigger's own request before the row is
 * written is the rest of a probe's lateness.
 */
async function probeSteps(c: Cluster, runIds: readonly number[]) {
  const rows = (await c.ds.query(
    `SELECT created_at AS written, COALESCE(first_dispatched_at, dispatched_at) AS dispatched, started_at AS started FROM runs WHERE id IN (${runIds.map(() => '?').join(', ')})`,
    [...runIds],
  )) as Array<Record<'written' | 'dispatched' | 'started', string | number | null>>;
  const steps = { 'written → dispatched': [] as number[], 'dispatched → started': [] as number[] };
  for (const r of rows) {
    if (r.dispatched === null || r.started === null) continue;
    steps['written → dispatched'].push(Number(r.dispatched) - Number(r.written));
    steps['dispatched → started'].push(Number(r.started) - Number(r.dispatched));
  }
  return Object.fromEntries(Object.entries(steps).map(([step, values]) => [step, latenessSummary(values)]));
}

/**
 * Where the hot key's hand-overs went, from its runs' rows: for each run that started in the span
 * after another had ended, that one's end (finished_at, the executor's) → its place given to this
 * one (late_from_at: the release sets it) → its DISPATCHED mark → its handler's start (started_at).
 */
async function handOverSteps(c: Cluster, taskId: number, span: { from: number; to: number }) {
  const rows = (await c.ds.query(
    "SELECT late_from_at AS released, COALESCE(first_dispatched_at, dispatched_at) AS dispatched, started_at AS started, finished_at AS finished FROM runs WHERE task_id = ? AND run_key = 'hot' AND started_at BETWEEN ? AND ? ORDER BY started_at",
    [taskId, span.from, span.to],
  )) as Array<Record<'released' | 'dispatched' | 'started' | 'finished', string | number | null>>;
  const steps = { 'end → released': [] as number[], 'released → dispatched': [] as number[], 'dispatched → started': [] as number[], 'end → next start': [] as number[] };
  for (let i = 1; i < rows.length; i++) {
    const [ended, next] = [Number(rows[i - 1].finished), rows[i]];
    if (rows[i - 1].finished === null || next.released === null || next.dispatched === null) continue;
    steps['end → released'].push(Number(next.released) - ended);
    steps['released → dispatched'].push(Number(next.dispatched) - Number(next.released));
    steps['dispatched → started'].push(Number(next.started) - Number(next.dispatched));
    steps['end → next start'].push(Number(next.started) - ended);
  }
  return Object.fromEntries(Object.entries(steps).map(([step, values]) => [step, latenessSummary(values)]));
}
