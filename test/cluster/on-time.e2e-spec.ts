/**
 * On-time fires under load (issue 22 item 3): tenant `lone`'s runs, each due alone, start on time
 * while tenant `acme`'s backlog is being worked off on the same engine — a burst of BURST runs
 * coming due over BURST_SPAN_MS, more than the engine's few slots can send in that time, so
 * runs keep coming due behind a growing line. Each of lone's runs goes through the on-time lane
 * (dispatch/ready-line.ts takeAlone). Before the lane it waited behind acme's line, seconds: the
 * slot kept for on-time work only took the line's newest run, and acme's runs came due after it.
 */
import { describe, expect, it } from 'vitest';
import { RunEntity } from '@baton/persistence';
import { sleep, useCluster, waitFor } from './support/cluster';
import { invocationCheck, latenessSummary, printFigures } from './support/figures';
import { insertTasks, pendingRunRow, seedTenant } from './support/seed';

const BURST = 3_000;
const BURST_SPAN_MS = 1_000;
const LONE = 18;
const LONE_EVERY_MS = 53;
/** On time for this machine (2 shared cores, everything on it): a run that waited behind the backlog would be seconds late. */
const ON_TIME_MS = 250;

describe("cluster: runs due alone start on time while another tenant's backlog is sent", () => {
  const ctx = useCluster('on-time');

  it("lone's runs start within ON_TIME_MS while acme's runs wait for seconds; none lost or duplicated", async () => {
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

    await sleep(due - Date.now() + BURST_SPAN_MS);
    const all = await waitFor(
      async () => {
        const runs = await c.ds.getRepository(RunEntity).find({ where: [{ tenantId: c.tenant.id }, { tenantId: lone.id }] });
        return runs.every((r) => r.state === 'SUCCEEDED') ? runs : null;
      },
      { timeoutMs: 120_000, intervalMs: 250, what: 'every run SUCCEEDED' },
    );
    await sleep(300); // the last record lines
    const records = [...c.records(), ...c.records([loneExecutor])];
    const startOf = new Map(records.map((r) => [r.runId, r.at]));
    const late = (tenantId: string) => all.filter((r) => r.tenantId === tenantId).map((r) => startOf.get(r.id)! - r.scheduledAt);
    const loneLate = latenessSummary(late(lone.id));
    const burstLate = latenessSummary(late(c.tenant.id));
    const check = invocationCheck(records, all.map((r) => r.id));
    printFigures(`on time: ${LONE} runs due alone during ${BURST} runs due over ${BURST_SPAN_MS} ms (1 engine, 4 + 1 slots)`, {
      'lone: handler start − scheduled (ms)': loneLate,
      'burst: handler start − scheduled (ms)': burstLate,
      'duplicated / missing': `${check.duplicated.length} / ${check.missing.length}`,
    });

    expect(all).toHaveLength(BURST + LONE);
    expect(check.duplicated).toEqual([]);
    expect(check.missing).toEqual([]);
    expect(burstLate.p90).toBeGreaterThan(4 * ON_TIME_MS); // there was a backlog to wait behind
    // p90, not max: on a loaded CI machine one of 18 may meet a stalled event loop; behind the
    // backlog (without the lane) they were seconds late, p90 and max alike.
    expect(loneLate.p90).toBeLessThan(ON_TIME_MS);
    expect(loneLate.max).toBeLessThan(4 * ON_TIME_MS);
  }, 240_000);
});
