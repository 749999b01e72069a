import { BatonClient } from '@baton/executor-sdk/client';
import { Cluster, sleep } from '../../test/cluster/support/cluster';
import { invocationCheck } from '../../test/cluster/support/figures';
import { machine, writeResult } from '../support/infra';
import { option, type Scenario } from '../support/scenario';
import { table } from '../support/table';
import { TriggerProbe } from '../support/trigger-probe';
import { openTwoTenants } from '../support/two-tenants';

/**
 * A busy neighbour on demand: tenant A submits runs through the Node SDK (`BatonClient.submit`, its
 * defaults) at `--load` a second (default 1,000), open loop, while tenant B triggers a task
 * `--rate` times a second (default 10) for `--seconds` (default 10), as it does before A's load
 * (alone): B's trigger → handler start. A console's wake-ups are taken by an engine at once
 * (ClaimSignal), one claim by id per transaction of A's; this measures what that costs B. The
 * target is the isolation benchmarks' (flooded-key, failing-storm): B's p99 during ≤ 1.25 × alone.
 * Cluster mode as a user runs it: one console process, 2 engines at their defaults, one demo
 * executor a tenant (the SDK's defaults), everything through the public API with API keys.
 */

const TARGET_RATIO = 1.25;
/** A's submissions leave in ticks of this many ms (open loop: on time, whatever the answers). */
const TICK_MS = 10;

export const busyNeighbour: Scenario = {
  name: 'busy-neighbour',
  description: "a tenant submitting 1,000 runs a second through the Node SDK: another tenant's trigger → start, alone and beside it",
  options: '--load=N (A\'s runs a second, default 1000) --rate=N (B\'s probe triggers a second, default 10) --seconds=N (default 10) --tag=…',
  quickSet: false,
  async run({ args, log }) {
    const load = Number(option(args, 'load') ?? 1_000);
    const rate = Number(option(args, 'rate') ?? 10);
    const seconds = Number(option(args, 'seconds') ?? 10);
    const tag = option(args, 'tag') ?? '';
    const c = await Cluster.open('busy');
    let failed = true;
    try {
      const { aExecutor, bExecutor, post, console: consoleProc, apiKeys } = await openTwoTenants(c);
      const work = (await post('a', '/tasks', { name: 'work', executorApp: 'demo', handler: 'noop', trigger: { kind: 'MANUAL' } })).id!;
      const report = (await post('b', '/tasks', { name: 'report', executorApp: 'demo', handler: 'noop', trigger: { kind: 'MANUAL' } })).id!;
      const probe = new TriggerProbe([{ name: 'b', trigger: async (n) => (await post('b', `/tasks/${report}/trigger`, { params: { n } })).id! }], () => new Map(c.records([bExecutor]).map((r) => [r.runId, r.at])));
      const client = new BatonClient({ url: consoleProc.url, apiKey: apiKeys.a });

      /** A's load for as long as `until` is pending: `load` a second in ticks; the number sent and refused. */
      const loadA = async (until: Promise<unknown>) => {
        let stop = false;
        const end = () => void (stop = true);
        until.then(end, end); // its rejection is the caller's to see (it awaits `until` too)
        const answers: Array<Promise<unknown>> = [];
        let refused = 0;
        const t0 = Date.now();
        for (let tick = 0; !stop; tick++) {
          await sleep(t0 + tick * TICK_MS - Date.now());
          const due = Math.floor(((tick + 1) * TICK_MS * load) / 1000) - Math.floor((tick * TICK_MS * load) / 1000);
          for (let i = 0; i < due; i++) answers.push(client.submit({ taskId: work, params: { tick, i } }).catch(() => void refused++));
        }
        await Promise.all(answers);
        return { sent: answers.length, refused };
      };

      await probe.run(rate, seconds); // warm-up: connections, the console's first requests, the engines' pools
      await loadA(sleep(3_000)); // A's path warmed too
      const { figures: alone } = await probe.run(rate, seconds);
      log(`  alone: B p50/p99 ${alone.b.p50}/${alone.b.p99} ms`);
      const during = probe.run(rate, seconds);
      const a = await loadA(during);
      const { figures: beside, from, to } = await during;
      client.close();
      const aStarts = c.records([aExecutor]).filter((r) => r.at >= from && r.at <= to).length;
      log(`  beside A (${a.sent} sent, ${a.refused} refused, ${((aStarts * 1000) / Math.max(1, to - from)).toFixed(0)} started a second): B p50/p99 ${beside.b.p50}/${beside.b.p99} ms`);

      const records = c.records([aExecutor, bExecutor]);
      const check = invocationCheck(records, [...new Set(records.map((r) => r.runId))]);
      const ratio = +(beside.b.p99 / Math.max(1, alone.b.p99)).toFixed(2);
      log(table(['series', 'alone p50 / p99 ms', 'beside A p50 / p99 ms', 'p99 ratio', `target ≤ ${TARGET_RATIO}`], [['tenant B', `${alone.b.p50} / ${alone.b.p99}`, `${beside.b.p50} / ${beside.b.p99}`, ratio, ratio <= TARGET_RATIO ? 'met' : 'missed']]));
      log(`  handler starts ${records.length}, duplicated ${check.duplicated.length}`);
      writeResult(`busy-neighbour${tag}.json`, {
        machine: machine(),
        plan: { load, rate, seconds, client: "BatonClient.submit, the SDK's defaults", executors: "demo, the SDK's defaults", engines: "2, Baton's defaults" },
        alone: alone.b,
        beside: beside.b,
        a: { sent: a.sent, refused: a.refused, startsPerSec: +((aStarts * 1000) / Math.max(1, to - from)).toFixed(0) },
        duplicated: check.duplicated.length,
        ratio,
      });
      failed = false;
      return [[`busy neighbour${tag}: B p99 alone → beside A at ${load}/s`, `${alone.b.p99} → ${beside.b.p99} ms (${ratio}×, target ≤ ${TARGET_RATIO}×)`]];
    } finally {
      await c.close(failed);
    }
  },
};
