/**
 * On-time fires under load (issue 22 item 3): tenant `lone`'s runs, each due alone, do not wait
 * behind tenant `acme`'s backlog on the same engine — a burst of BURST runs coming due over
 * BURST_SPAN_MS, more than the engine's few slots can send in that time, so runs keep coming due
 * behind a growing line. Each of lone's runs goes through the on-time lane
 * (dispatch/ready-line.ts takeAlone) and starts before acme's runs that came due before it. Before
 * the lane it waited behind acme's line, seconds: the slot kept for on-time work only took the
 * line's newest run, and acme's runs came due after it. Checked as that order (which a loaded
 * machine keeps: it only makes the line longer); the lateness itself is a figure, printed here
 * and measured by `npm run bench -- ontime`.
 */
import { describe, expect, it } from 'vitest';
import { RunEntity } from '@baton/persistence';
import { useCluster, waitFor } from './support/cluster';
import { invocationCheck, latenessSummary, printFigures } from './support/figures';
import { insertTasks, pendingRunRow, seedTenant } from './support/seed';

const BURST = 3_000;
const BURST_SPAN_MS = 1_000;
const LONE = 18;
const LONE_EVERY_MS = 53;

describe("cluster: runs due alone start on time while another tenant's backlog is sent", () => {
  const ctx = useCluster('on-time');

  it("lone's runs start ahead of acme's backlog due before them; none lost or duplicated", async () => {
    const c = ctx.cluster;
    const lone = await seedTenant(c.ds, { id: 'lone', engineGroup: c.tenant.engineGroup });
    // Few slots: the engine, not the machine, is what the backlog waits for. Nothing sent ahead of
    // its instant: the lane is for runs that leave at it (an executor of protocol 1, a FORBID
    // task's), and a backlog sent ahead would be no backlog at the instant.
    await c.startEngines(1, { BATON_ENGINE_SLOTS: '4', BATON_ENGINE_ON_TIME_SLOTS: '1', BATON_SEND_AHEAD_MS: '0' });
    await c.startExecutors(1, { BATON_EXECUTOR_CONCURRENCY: '16', BATON_EXECUTOR_QUEUE_LIMIT: '20000' });
    const loneExecutor = await c.startExecutorOf(lone, 'lone-executor');
    const burstTasks = await insertTasks(c.ds, c.tenant, Array.from({ length: 30 }, (_, i) => ({ name: `burst-${i}`, trigger: { kind: 'MANUAL' as const }, handler: 'noop' })));
    const [loneTask] = await insertTasks(c.ds, lone, [{ name: 'lone', trigger: { kind: 'MANUAL' }, handler: 'noop' }]);

    const now = Date.now();
    const due = now + 4_000; // claimed ahead (the look-ahead) into the engine's queue before T
    const burst = Array.from({ length: BURST }, (_, i) => pendingRunRow(c.tenant, burstTasks[i % burstTasks.length], due + Math.floor((i * BURST_SPAN_MS) / BURST), `b:${i}`, { now }));
    for (let i = 0; i < burst.length; i += 1000) await c.ds.getRepository(RunEntity).insert(burst.slice(i, i + 1000));
    await c.ds.getRepository(RunEntity).insert(Array.from({ length: LONE }, (_, i) => pendingRunRow(lone, loneTask, due + 20 + i * LONE_EVERY_MS, `l:${i}`, { now })));

    const all = await waitFor(
      async () => {
        const runs = await c.ds.getRepository(RunEntity).find({ where: [{ tenantId: c.tenant.id }, { tenantId: lone.id }] });
        return runs.every((r) => r.state === 'SUCCEEDED') ? runs : null;
      },
      { timeoutMs: 120_000, intervalMs: 250, what: 'every run SUCCEEDED' },
    );
    const records = [...c.records(), ...c.records([loneExecutor])];
    const startOf = new Map(records.map((r) => [r.runId, r.at]));
    const late = (tenantId: string) => all.filter((r) => r.tenantId === tenantId).map((r) => startOf.get(r.id)! - r.scheduledAt);
    const loneLate = latenessSummary(late(lone.id));
    const burstLate = latenessSummary(late(c.tenant.id));
    const check = invocationCheck(records, all.map((r) => r.id));
    // For each of lone's runs: acme's runs due before it that started after it (the line it did not wait behind).
    const burstRuns = all.filter((r) => r.tenantId === c.tenant.id);
    const overtaken = all
      .filter((r) => r.tenantId === lone.id)
      .map((l) => burstRuns.filter((b) => b.scheduledAt < l.scheduledAt && startOf.get(b.id)! > startOf.get(l.id)!).length);
    printFigures(`on time: ${LONE} runs due alone during ${BURST} runs due over ${BURST_SPAN_MS} ms (1 engine, 4 + 1 slots)`, {
      'lone: handler start − scheduled (ms)': loneLate,
      'burst: handler start − scheduled (ms)': burstLate,
      "lone: acme's runs due before it that started after it": overtaken.join(', '),
      'duplicated / missing': `${check.duplicated.length} / ${check.missing.length}`,
    });

    expect(all).toHaveLength(BURST + LONE);
    expect(check.duplicated).toEqual([]);
    expect(check.missing).toEqual([]);
    // Behind the line (without the lane) none of them would pass a run due before it. Nine in ten,
    // not all: the first may come due before a line has formed.
    expect(overtaken.filter((n) => n > 0).length, `overtaken: ${overtaken.join(', ')}`).toBeGreaterThanOrEqual(Math.floor(LONE * 0.9));
  }, 240_000);
});
