import { join } from 'node:path';
import { Cluster, sleep } from '../../test/cluster/support/cluster';
import { percentile } from '../../test/cluster/support/figures';
import { startConsoleProcess } from '../../test/cluster/support/processes';
import { insertTasks, seedTenant } from '../../test/cluster/support/seed';
import { insertApiKey } from '../../test/console/console-test-kit';
import { machine, writeResult } from '../support/infra';
import { option, type Scenario } from '../support/scenario';
import { table } from '../support/table';

/**
 * A tenant's heavy reads against another tenant's console calls (issue 24's run search, issue 23's
 * tasks as code): tenant A has `--runs` ended runs (default 300,000) and sends `--parallel` (40)
 * run searches for a text found nowhere — each examines its whole 20,000-run slice — at once, again
 * and again; tenant B, meanwhile, lists its runs and tasks one call after another. B's p50/p99
 * alone and during A's searches, A's calls per second, through the console process's REST API
 * with API keys. `--flood=list` has A send cheap calls instead (its task list, back to back on
 * each of its connections), `--flood=events` single events (each stored through its tenant's
 * lanes): what a tenant's flood of ordinary calls costs another. `--flood=pages` has A list its
 * runs 500 at a time, each run holding a result of `--result-bytes` (20,000): large pages of runs
 * with large columns.
 */

const CALLS = 60;

/** One of tenant A's calls. */
interface Call {
  method: string;
  path: string;
  body?: string;
}

type Flood = 'search' | 'list' | 'events' | 'pages';

/** What tenant A floods the console with: its calls, by kind (`--flood`). */
const FLOODS: Record<Flood, (end: number, runs: number) => Call> = {
  search: (end: number, runs: number) => ({ method: 'GET', path: `/runs/search?q=${encodeURIComponent('found nowhere')}&from=${end - runs * 1000}&to=${end + 1}` }),
  list: () => ({ method: 'GET', path: '/tasks?limit=50' }),
  events: () => ({ method: 'POST', path: '/events', body: JSON.stringify({ name: 'flood.tick', payload: { from: 'tenant-a' } }) }),
  pages: () => ({ method: 'GET', path: '/runs?limit=500' }),
};

interface Phase {
  phase: string;
  p50: number;
  p99: number;
  max: number;
}

async function timeB(url: string, key: Record<string, string>, calls: number): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < calls; i++) {
    const path = i % 2 ? '/runs?limit=50' : '/tasks?limit=50';
    const t0 = performance.now();
    const res = await fetch(`${url}${path}`, { headers: key });
    await res.text();
    if (res.status !== 200) throw new Error(`B: GET ${path} → ${res.status}`);
    ms.push(performance.now() - t0);
  }
  return ms;
}

const figures = (phase: string, ms: number[]): Phase => ({ phase, p50: +percentile(ms, 50).toFixed(1), p99: +percentile(ms, 99).toFixed(1), max: +Math.max(...ms).toFixed(1) });

export const heavyNeighbour: Scenario = {
  name: 'heavy-neighbour',
  description: "a tenant's 40 concurrent run searches (each a 20,000-run slice; or cheap calls, or events: --flood) against another tenant's list calls: B's p50/p99 alone and during them",
  options: '--runs=N (tenant A\'s ended runs, default 300000) --parallel=N (A\'s calls at once, default 40) --flood=search|list|events|pages (A\'s calls, default search) --result-bytes=N (each of A\'s runs\' result with --flood=pages, default 20000) --tag=…',
  quickSet: false,
  async run({ args, log }) {
    const runs = Number(option(args, 'runs') ?? 300_000);
    const parallel = Number(option(args, 'parallel') ?? 40);
    const tag = option(args, 'tag') ?? '';
    const flood = (option(args, 'flood') ?? 'search') as Flood;
    if (!(flood in FLOODS)) throw new Error(`--flood: "${flood}" is not one of ${Object.keys(FLOODS).join(', ')}`);
    const resultBytes = flood === 'pages' ? Number(option(args, 'result-bytes') ?? 20_000) : 0;
    const c = await Cluster.open('heavy');
    let failed = true;
    try {
      const a = await seedTenant(c.ds, { id: 'tenant-a', engineGroup: c.tenant.engineGroup });
      const b = await seedTenant(c.ds, { id: 'tenant-b', engineGroup: c.tenant.engineGroup });
      const [aTask] = await insertTasks(c.ds, a, [{ name: 'export', trigger: { kind: 'MANUAL' }, handler: 'noop' }]);
      const [bTask] = await insertTasks(c.ds, b, [{ name: 'report', trigger: { kind: 'MANUAL' }, handler: 'noop' }]);
      const end = Date.now() - 60_000;
      // A result of `bytes` made by the server (REPEAT): a statement of 2,000 such rows stays small.
      const result = (bytes: number) => (bytes > 0 ? `CONCAT('{"rows":"', REPEAT('r', ${Math.max(0, bytes - 11)}), '"}')` : 'NULL');
      const seed = async (tenant: string, task: number, n: number, resultOf: string) => {
        for (let done = 0; done < n; done += 2000) {
          const rows: string[] = [];
          for (let i = done; i < Math.min(n, done + 2000); i++) {
            const at = end - (n - i) * 1000;
            rows.push(`('${tenant}',${task},'${c.tenant.engineGroup}','FAILED','SCHEDULE','s:${at}',1,0,'{"i":${i}}',${at},${at},${at + 3},${at + 3},${at + 4},${at + 9},${resultOf},'Error: planned failure ${i}',${at},${at + 9})`);
          }
          await c.ds.query(
            `INSERT INTO runs (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at, dispatched_at, accepted_at, started_at, finished_at, result, error, created_at, updated_at) VALUES ${rows.join(',')}`,
          );
        }
      };
      await seed(a.id, aTask, runs, result(resultBytes));
      await seed(b.id, bTask, 1000, result(0));
      await c.ds.query('ANALYZE TABLE runs');
      log(`  seeded ${runs.toLocaleString('en-US')} runs of tenant A${resultBytes ? ` (results of ${resultBytes.toLocaleString('en-US')} bytes)` : ''}, 1,000 of tenant B`);
      const consoleProc = await startConsoleProcess({ name: 'console', logFile: join(c.dir, 'console.log'), env: { BATON_DB_URL: c.db.url, BATON_CONSOLE_PORT: '0', BATON_LOG_LEVEL: 'warn' }, compiled: true, timeoutMs: 300_000 });
      const url = `${consoleProc.url}/api`;
      const aKey = await insertApiKey(c.ds, a.id, flood === 'events' ? 'TENANT_ADMIN' : 'TENANT_VIEWER');
      const bKey = await insertApiKey(c.ds, b.id, 'TENANT_VIEWER');
      await timeB(url, bKey, 10); // warm-up
      const alone = await timeB(url, bKey, CALLS);

      let stop = false;
      let calls = 0;
      let refused = 0;
      const call = FLOODS[flood](end, runs);
      const headers = call.body === undefined ? aKey : { ...aKey, 'content-type': 'application/json' };
      const worker = async () => {
        while (!stop) {
          const res = await fetch(`${url}${call.path}`, { method: call.method, headers, body: call.body });
          await res.text();
          if (res.status < 300) calls++;
          else if (res.status === 429) {
            refused++;
            await sleep(Number(res.headers.get('retry-after') ?? '1') * 1000);
          } else throw new Error(`A: ${call.method} ${call.path} → ${res.status}`);
        }
      };
      const started = performance.now();
      const workers = Array.from({ length: parallel }, worker);
      await sleep(1000);
      const during = await timeB(url, bKey, CALLS);
      stop = true;
      await Promise.all(workers);
      const seconds = (performance.now() - started) / 1000;
      const rows = [figures('B alone', alone), figures(`B during A's ${parallel} ${flood} calls at once`, during)];
      log(table(['phase', 'p50 ms', 'p99 ms', 'max ms'], rows.map((r) => [r.phase, r.p50, r.p99, r.max])));
      const aRate = +(calls / seconds).toFixed(1);
      log(`  tenant A: ${calls} ${flood} calls in ${seconds.toFixed(1)} s (${aRate}/s), ${refused} answered 429`);
      writeResult(`heavy-neighbour${tag}.json`, { machine: machine(), runs, parallel, flood, resultBytes, phases: rows, tenantA: { calls, perSec: aRate, refused } });
      failed = false;
      return [
        [`heavy neighbour${tag}: B p99 alone / during`, `${rows[0].p99} / ${rows[1].p99} ms (p50 ${rows[0].p50} / ${rows[1].p50})`],
        [`heavy neighbour${tag}: A's ${flood} calls`, `${aRate}/s, ${refused} refused (429)`],
      ];
    } finally {
      await c.close(failed);
    }
  },
};
