import { spawn } from 'node:child_process';
import { Cluster, sleep } from '../../test/cluster/support/cluster';
import { engineMetrics } from '../../test/cluster/support/engine-http';
import { ROOT } from '../../test/cluster/support/processes';
import { insertTasks, seedTenant } from '../../test/cluster/support/seed';
import { machine, writeResult } from '../support/infra';
import { option, type Scenario } from '../support/scenario';
import { table } from '../support/table';
import { stats, type StageStats } from './burst';

/**
 * A tenant flooding an engine with signed requests (the engine's per-tenant admission,
 * apps/engine/src/security/tenant-admission.ts): tenant `flooder` holds its own executor secret,
 * so from its own process (bench/support/signed-callback-flood.ts) it sends validly signed
 * callbacks for runs it does not have — each a database read on the engine —, CONNECTIONS
 * requests in flight at all times, for FLOOD_S seconds. Meanwhile tenant B's FIXED_RATE task fires
 * every INTERVAL_MS on its own executor. One engine on MariaDB, run twice: with the admission
 * defaults and with every bound off (0). B's lateness = its handler's start (the executor's
 * record) − the fire's scheduled instant, for the fires before the flood (idle) and during it;
 * the flooder's answers by status; the engine's refusals from /metrics.
 */

const INTERVAL_MS = 97; // ~100 ms, not a divisor of any poll
const IDLE_S = 4;
const FLOODER = 'flooder';
const ADMISSION_OFF: Record<string, string> = { BATON_TENANT_REQUESTS_IN_FLIGHT: '0', BATON_TENANT_REQUESTS_WAITING: '0', BATON_TENANT_REQUEST_RATE: '0' };

export interface FloodCase {
  limits: 'defaults' | 'off';
  idle: StageStats;
  during: StageStats;
  /** Fires due during the flood that had not started when it ended (counted in `during` with their lateness then). */
  notStarted: number;
  flood: { sent: number; byStatus: Record<string, number>; perSec: number; callbacksPerRequest: number };
  refused: Record<string, number>;
}

function runFlooder(engineUrl: string, secret: string, seconds: number, connections: number, perRequest: number): Promise<FloodCase['flood']> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', './bench/register.cjs', 'bench/support/signed-callback-flood.ts', engineUrl, FLOODER, secret, String(seconds), String(connections), String(perRequest)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(line) as FloodCase['flood']);
      } catch {
        reject(new Error(`the flooder exited ${code} without its figures: ${out.slice(0, 300)}`));
      }
    });
  });
}

async function runCase(limits: FloodCase['limits'], floodS: number, connections: number, perRequest: number, log: (s: string) => void): Promise<FloodCase> {
  const c = await Cluster.open(`flood-${limits}`, 'tenant-b');
  let failed = true;
  try {
    const flooder = await seedTenant(c.ds, { id: FLOODER, engineGroup: c.tenant.engineGroup });
    const [engine] = await c.startEngines(1, limits === 'off' ? ADMISSION_OFF : {});
    const [executor] = await c.startExecutors(1);
    const start = Date.now() + 1_500;
    const floodAt = start + IDLE_S * 1000;
    const floodEnd = floodAt + floodS * 1000;
    const [task] = await insertTasks(c.ds, c.tenant, [{ name: `every-${INTERVAL_MS}ms`, trigger: { kind: 'FIXED_RATE', intervalMs: INTERVAL_MS }, handler: 'noop', startAt: start, endAt: floodEnd }]);
    await sleep(Math.max(0, floodAt - Date.now()));
    log(`  ${limits}: flooding for ${floodS} s, ${connections} requests in flight of ${perRequest} callback(s) each…`);
    const flood = await runFlooder(engine.url, flooder.executorSecret, floodS, connections, perRequest);
    await sleep(1_000); // the last fires' records
    const started = new Map(c.records([executor]).map((r) => [r.runId, r.at]));
    const fires = ((await c.ds.query('SELECT id, scheduled_at AS s FROM runs WHERE tenant_id = ? AND task_id = ?', [c.tenant.id, task])) as Array<{ id: number; s: string }>).map((r) => ({
      scheduled: Number(r.s),
      started: started.get(Number(r.id)) ?? null,
    }));
    const lateness = (from: number, to: number) => fires.filter((f) => f.scheduled >= from && f.scheduled < to).map((f) => (f.started ?? floodEnd) - f.scheduled);
    const metrics = await engineMetrics(engine.url);
    const refused: Record<string, number> = {};
    for (const [name, value] of metrics) {
      const m = /^baton_engine_signed_requests_refused_total\{.*reason="([A-Z_]+)".*\}$/.exec(name);
      if (m) refused[m[1]] = (refused[m[1]] ?? 0) + value;
    }
    const result: FloodCase = {
      limits,
      idle: stats(lateness(start, floodAt)),
      during: stats(lateness(floodAt, floodEnd)),
      notStarted: fires.filter((f) => f.scheduled >= floodAt && f.scheduled < floodEnd && f.started === null).length,
      flood,
      refused,
    };
    log(`  ${limits}: B during the flood p50 ${result.during.p50} ms, p99 ${result.during.p99} ms (idle p99 ${result.idle.p99}); flooder ${flood.perSec} req/s ${JSON.stringify(flood.byStatus)}`);
    failed = false;
    return result;
  } finally {
    await c.close(failed);
  }
}

export const flood: Scenario = {
  name: 'flood',
  description: `a tenant flooding an engine with validly signed callbacks for unknown runs from its own process: another tenant's fires (every ${INTERVAL_MS} ms) lateness p50/p99 with the per-tenant admission at its defaults and off`,
  options: '--seconds=N (the flood, default 10) --connections=N (its requests in flight, default 64) --per-request=N (callbacks per request: 1 the single route, up to 100 a batch; default 1) --tag=…',
  quickSet: false,
  async run({ args, log }) {
    const floodS = Number(option(args, 'seconds') ?? '10');
    const connections = Number(option(args, 'connections') ?? '64');
    const perRequest = Number(option(args, 'per-request') ?? '1');
    const cases: FloodCase[] = [];
    for (const limits of ['defaults', 'off'] as const) cases.push(await runCase(limits, floodS, connections, perRequest, log));
    const rows = cases.map((r) => [
      r.limits,
      `${r.idle.p50} / ${r.idle.p99}`,
      r.during.n,
      r.during.p50,
      r.during.p90,
      r.during.p99,
      r.during.max,
      r.notStarted,
      r.flood.perSec,
      Object.entries(r.flood.byStatus).map(([s, n]) => `${s}: ${n}`).join(', '),
      Object.entries(r.refused).map(([s, n]) => `${s}: ${n}`).join(', ') || '0',
    ]);
    console.log(
      `Flood — tenant B's fires (ms, handler start − scheduled) while tenant ${FLOODER} floods the engine (${connections} in flight, ${perRequest} callback(s) a request, ${floodS} s)\n${table(['admission', 'idle p50/p99', 'fires', 'p50', 'p90', 'p99', 'max', 'not started', 'flood req/s', 'flood answers', 'refused (metric)'], rows)}\n`,
    );
    writeResult(`flood${option(args, 'tag') ?? ''}.json`, { benchmark: 'flood', machine: machine(), intervalMs: INTERVAL_MS, floodS, connections, perRequest, cases });
    return cases.map((r): [string, string] => [`flood, admission ${r.limits}`, `B p50 ${r.during.p50} ms, p99 ${r.during.p99} ms (${r.during.n} fires; idle p99 ${r.idle.p99}); flooder ${r.flood.perSec} req/s`]);
  },
};
