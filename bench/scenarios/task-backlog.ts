import type { DemoInvocationRecord } from '../../apps/demo-executor/src';
import { Cluster, sleep, waitFor } from '../../test/cluster/support/cluster';
import { invocationCheck } from '../../test/cluster/support/figures';
import { machine, writeResult } from '../support/infra';
import { JsonlTail } from '../support/jsonl-tail';
import { option, parseEngineEnv, type Scenario } from '../support/scenario';
import { table } from '../support/table';
import { TriggerProbe, type ProbeFigures } from '../support/trigger-probe';
import { openTwoTenants } from '../support/two-tenants';

/**
 * One task's backlog beside its tenant's other task (docs/MANUAL.md, A tenant's tasks in turn):
 * tenant A's task `bulk` gets `--backlog` runs (default 10,000) at once through
 * POST /api/runs/batch, 1,000 a call, and is kept at least half that deep while the probe runs (a
 * queue fed faster than it drains); meanwhile A's task `interactive` and tenant B's task `report`
 * are triggered one at a time, `--rate` a second each (default 20) for `--seconds` (default 20),
 * as they are before the backlog (alone). Each probe run's lateness is its handler's start (the
 * demo executor's own record) − when its trigger was sent. Also printed: `bulk`'s starts a second
 * during the probe. `--bulk-ms` makes the backlog slow (the demo's `sleep` handler), so that it fills
 * the executor's queue and what the engines hold back for its room; `--bulk-app` puts it on an app
 * of its own (docs/BENCHMARKS.md, Task backlog: A backlog on a slow app). Cluster mode as a user runs it: one console process, 2 engines at their
 * defaults, one demo executor a tenant (the SDK's defaults), everything through the REST API.
 */

const WARM_UP_S = 10;
/** How often the backlog's depth is read (and topped up). */
const TOP_UP_EVERY_MS = 250;

export const taskBacklog: Scenario = {
  name: 'task-backlog',
  description: "one task's backlog of 10,000 kept full: the lateness of its tenant's other task and of another tenant, alone and during it",
  options:
    "--backlog=N (runs of the bulk task queued at once, and kept at least half that deep; default 10000) --rate=N (probe triggers per second per series, default 20) --seconds=N (default 20) --engine-env=BATON_A=1,… (both engines' settings beyond the defaults, e.g. BATON_TASK_RATE=500: every task capped as before 2026-12-07) --bulk-ms=N (the bulk task's handler sleeps N ms; default 0: noop) --bulk-app=NAME (the bulk task on an executor app of its own, one more demo executor; default: A's executor) --bulk-env=K=V,… (that executor's settings) --tag=…",
  quickSet: false,
  async run({ args, log }) {
    const backlog = Number(option(args, 'backlog') ?? 10_000);
    const rate = Number(option(args, 'rate') ?? 20);
    const seconds = Number(option(args, 'seconds') ?? 20);
    const tag = option(args, 'tag') ?? '';
    const engineEnv = parseEngineEnv(option(args, 'engine-env'));
    const bulkApp = option(args, 'bulk-app');
    const bulkMs = Number(option(args, 'bulk-ms') ?? 0);
    const bulkEnv = parseEngineEnv(option(args, 'bulk-env'));
    const c = await Cluster.open('tback');
    let failed = true;
    try {
      const { aExecutor, bExecutor, post } = await openTwoTenants(c, () => engineEnv);
      const bulkExecutor = bulkApp ? (await c.startExecutors(1, { ...bulkEnv, BATON_EXECUTOR_APP: bulkApp }))[0] : aExecutor;
      const bulk = (await post('a', '/tasks', { name: 'bulk', executorApp: bulkApp ?? 'demo', handler: bulkMs > 0 ? 'sleep' : 'noop', ...(bulkMs > 0 ? { params: { ms: bulkMs } } : {}), trigger: { kind: 'MANUAL' } })).id!;
      const interactive = (await post('a', '/tasks', { name: 'interactive', executorApp: 'demo', handler: 'noop', trigger: { kind: 'MANUAL' } })).id!;
      const report = (await post('b', '/tasks', { name: 'report', executorApp: 'demo', handler: 'noop', trigger: { kind: 'MANUAL' } })).id!;

      /** A's probe runs triggered so far: the rest of A's executor's starts are bulk's. */
      let probesOfA = 0;
      // Handler starts read as the record files grow (JsonlTail), not whole 4 times a second: tens of
      // thousands of bulk records parsed again each poll would take the load generator's CPU from the 2 cores.
      const tails = [aExecutor, bExecutor, ...(bulkExecutor === aExecutor ? [] : [bulkExecutor])].map((e) => new JsonlTail<DemoInvocationRecord>(e.recordFile));
      const startedAt = new Map<number, number>();
      let startsOfA = 0;
      const readStarts = () => {
        tails.forEach((tail, i) => {
          for (const r of tail.next()) {
            startedAt.set(r.runId, r.at);
            if (i === 0 || i === 2) startsOfA++;
          }
        });
        return startedAt;
      };
      const probe = new TriggerProbe(
        [
          {
            name: 'aOther',
            trigger: async (n) => {
              probesOfA++;
              return (await post('a', `/tasks/${interactive}/trigger`, { params: { n } })).id!;
            },
          },
          { name: 'b', trigger: async (n) => (await post('b', `/tasks/${report}/trigger`, { params: { n } })).id! },
        ],
        readStarts,
      );
      await probe.run(rate, Math.min(seconds, WARM_UP_S)); // warm-up: connections, the console's first requests, the engines' pools
      const { figures: alone } = await probe.run(rate, seconds);
      log(`  alone: A's other task p50/p99 ${alone.aOther.p50}/${alone.aOther.p99} ms, B ${alone.b.p50}/${alone.b.p99} ms`);

      let submitted = 0;
      const submit = async (n: number) => {
        for (let i = 0; i < n; i += 1000) {
          const runs = Array.from({ length: Math.min(1000, n - i) }, (_, j) => ({ taskId: bulk, params: bulkMs > 0 ? { ms: bulkMs } : { i: submitted + i + j } }));
          const { results } = await post('a', '/runs/batch', { runs });
          if (results!.some((r) => r.status !== 201)) throw new Error(`bulk batch: ${JSON.stringify(results!.find((r) => r.status !== 201))}`);
        }
        submitted += n;
      };
      const bulkStarted = () => {
        readStarts();
        return startsOfA - probesOfA;
      };
      const startedBefore = bulkStarted();
      await submit(backlog);
      // Kept at least half as deep as it started: its runs submitted and not started yet.
      let topping = true;
      const topUp = (async () => {
        while (topping) {
          if (submitted - (bulkStarted() - startedBefore) < backlog / 2) await submit(1000);
          else await sleep(TOP_UP_EVERY_MS);
        }
      })();
      const bulkAtStart = bulkStarted();
      const { figures: during, from, to } = await probe.run(rate, seconds);
      const bulkPerSec = Math.round((bulkStarted() - bulkAtStart) / ((to - from) / 1000));
      topping = false;
      await topUp;
      log(`  during: A's other task p50/p99 ${during.aOther.p50}/${during.aOther.p99} ms, B ${during.b.p50}/${during.b.p99} ms; bulk ~${bulkPerSec} starts/s, ${submitted} submitted`);
      await waitFor(() => bulkStarted() - startedBefore >= submitted, { timeoutMs: 900_000, intervalMs: 500, what: `all ${submitted} bulk runs started`, detail: () => `${bulkStarted() - startedBefore} started` });

      const records = c.records([aExecutor, bExecutor]);
      const check = invocationCheck(records, [...new Set(records.map((r) => r.runId))]);
      const ratio = (d: ProbeFigures, a: ProbeFigures) => +(d.p99 / Math.max(1, a.p99)).toFixed(2);
      const rows = [
        ["A's other task", alone.aOther, during.aOther],
        ['tenant B', alone.b, during.b],
      ] as const;
      log(table(['series', 'alone p50 / p99 ms', 'during the backlog p50 / p99 ms', 'p99 ratio'], rows.map(([name, a, d]) => [name, `${a.p50} / ${a.p99}`, `${d.p50} / ${d.p99}`, ratio(d, a)])));
      log(`  handler starts ${records.length}, duplicated ${check.duplicated.length}`);
      writeResult(`task-backlog${tag}.json`, {
        machine: machine(),
        plan: { backlog, rate, seconds, executors: "demo, the SDK's defaults", engines: "2, Baton's defaults", engineEnv },
        alone: { aOther: alone.aOther, b: alone.b },
        during: { aOther: during.aOther, b: during.b },
        bulk: { submitted, startsPerSecDuringProbe: bulkPerSec },
        duplicated: check.duplicated.length,
        ratios: { aOther: ratio(during.aOther, alone.aOther), b: ratio(during.b, alone.b) },
      });
      failed = false;
      return [
        ...rows.map(([name, a, d]) => [`task backlog${tag}: ${name} p99 alone → during`, `${a.p99} → ${d.p99} ms (${ratio(d, a)}×)`] as [string, string]),
        [`task backlog${tag}: bulk during the probe`, `${bulkPerSec} starts/s, duplicated ${check.duplicated.length}`],
      ];
    } finally {
      await c.close(failed);
    }
  },
};
