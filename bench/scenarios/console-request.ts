import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { Cluster } from '../../test/cluster/support/cluster';
import { startConsoleProcess } from '../../test/cluster/support/processes';
import { insertApiKey } from '../../test/console/console-test-kit';
import { AT_DEFAULTS } from './run-now';
import { cpuSeconds, machine, RESULTS_DIR, writeResult } from '../support/infra';
import { option, type Scenario } from '../support/scenario';
import { fmt, table } from '../support/table';

/**
 * Console request (issue 38, issue 40's intake): the console process's CPU per HTTP request, for
 * `POST /api/tasks/:id/trigger` with params, `GET /api/tasks` and `GET /api/auth/me` (no SQL once
 * the key's check is kept: the HTTP and Nest pipeline alone), with an API key, in cluster mode
 * (1 console, 1 engine, 1 demo executor, MariaDB). Closed loop over CONNECTIONS keep-alive
 * connections, N requests a kind after a warm-up; CPU from /proc of the console alone (user +
 * system), so the figure holds on a shared machine where latency does not. `--profile` writes the
 * console's V8 CPU profile over the measured requests (bench/results/profiles/console-request<tag>/).
 */

/** Keep-alive connections, each with one request in flight (`--connections`). */
const CONNECTIONS = 16;
const TASKS = 8;

interface KindFigures {
  kind: string;
  requests: number;
  cpuMsPerRequest: number;
  wallS: number;
  statuses: Record<string, number>;
}

export const consoleRequest: Scenario = {
  name: 'console-request',
  description: "the console's CPU per HTTP request (trigger with params, GET /api/tasks, GET /api/auth/me) in cluster mode, closed loop",
  quickSet: false,
  options: [
    ['--requests=3000', 'measured requests of each kind (after 1,000 of warm-up)'],
    ['--kinds=trigger,list,me', 'trigger: POST /api/tasks/:id/trigger {params}; list: GET /api/tasks; me: GET /api/auth/me (no SQL: the pipeline alone); batch1, batch10: POST /api/runs/batch of 1 and 10 runs'],
    ['--profile', "the console's V8 CPU profile over the measured requests (`node -r ./bench/register.cjs bench/profile-summary.ts <dir>` sums it)"],
    ['--connections=16', 'keep-alive connections, one request in flight on each (1: no two requests share a commit or a wake-up)'],
    ['--tag=-x', 'result file suffix: bench/results/console-request-x.json'],
  ]
    .map(([flag, what]) => `${flag.padEnd(30)} ${what}`)
    .join('\n'),
  async run({ args, log }) {
    const n = Number(option(args, 'requests') ?? 3000);
    const kinds = (option(args, 'kinds') ?? 'trigger,list,me').split(',');
    const tag = option(args, 'tag') ?? '';
    const connections = Number(option(args, 'connections') ?? CONNECTIONS);
    const profileDir = args.includes('--profile') ? join(RESULTS_DIR, 'profiles', `console-request${tag}`) : null;
    const c = await Cluster.open('cr', 'acme');
    try {
      await c.startEngines(1, AT_DEFAULTS);
      await c.startExecutors(1, { BATON_EXECUTOR_CONCURRENCY: '50', BATON_EXECUTOR_QUEUE_LIMIT: '20000' });
      const profiled: Record<string, string> = profileDir ? { NODE_OPTIONS: `-r ${join(__dirname, '..', 'support', 'cpu-profile.cjs')}`, BENCH_PROFILE_DIR: profileDir, BENCH_PROFILE_SIGNAL: 'SIGWINCH' } : {};
      const console_ = await startConsoleProcess({ name: 'console', logFile: join(c.dir, 'console.log'), env: { BATON_DB_URL: c.db.url, BATON_CONSOLE_PORT: '0', BATON_HOST: '127.0.0.1', ...profiled } });
      const key = await insertApiKey(c.ds, c.tenant.id, 'TENANT_ADMIN');
      const url = new URL(console_.url);
      const agent = new Agent({ keepAlive: true, maxSockets: connections });
      const call = (method: string, path: string, body?: unknown) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const payload = body === undefined ? undefined : JSON.stringify(body);
          const headers: Record<string, string | number> = { ...key };
          if (payload !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
          const req = request({ agent, host: url.hostname, port: url.port, path, method, headers }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (d: string) => (text += d));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
          });
          req.on('error', reject);
          req.end(payload);
        });
      const taskIds: number[] = [];
      for (let i = 0; i < TASKS; i++) {
        const res = await call('POST', '/api/tasks', { name: `cr-${i}`, executorApp: 'demo', handler: 'noop', trigger: { kind: 'MANUAL' }, params: { task: i } });
        if (res.status !== 201) throw new Error(`POST /api/tasks → ${res.status} ${res.body.slice(0, 300)}`);
        taskIds.push((JSON.parse(res.body) as { id: number }).id);
      }
      const send: Record<string, (i: number) => Promise<{ status: number; body: string }>> = {
        trigger: (i) => call('POST', `/api/tasks/${taskIds[i % TASKS]}/trigger`, { params: { k: `k${i}`, task: i % TASKS } }),
        list: () => call('GET', '/api/tasks'),
        me: () => call('GET', '/api/auth/me'),
        batch1: (i) => call('POST', '/api/runs/batch', { runs: [{ taskId: taskIds[i % TASKS], params: { k: `k${i}`, task: i % TASKS } }] }),
        batch10: (i) => call('POST', '/api/runs/batch', { runs: Array.from({ length: 10 }, (_, j) => ({ taskId: taskIds[(i + j) % TASKS], params: { k: `k${i}-${j}`, task: (i + j) % TASKS } })) }),
      };
      /** `count` requests of a kind, `connections` at a time; their statuses. */
      const loop = async (kind: string, count: number) => {
        const statuses: Record<string, number> = {};
        let next = 0;
        await Promise.all(
          Array.from({ length: connections }, async () => {
            while (next < count) {
              const { status } = await send[kind](next++);
              statuses[status] = (statuses[status] ?? 0) + 1;
            }
          }),
        );
        return statuses;
      };
      for (const kind of kinds) await loop(kind, 1000);
      if (profileDir) process.kill(console_.pid, 'SIGWINCH');
      const figures: KindFigures[] = [];
      for (const kind of kinds) {
        const cpu0 = cpuSeconds(console_.pid);
        const t0 = Date.now();
        const statuses = await loop(kind, n);
        const wallS = (Date.now() - t0) / 1000;
        const cpuMsPerRequest = +(((cpuSeconds(console_.pid) - cpu0) * 1000) / n).toFixed(3);
        figures.push({ kind, requests: n, cpuMsPerRequest, wallS, statuses });
        log(`  ${kind}: ${n} requests, console CPU ${cpuMsPerRequest} ms a request, ${wallS.toFixed(1)} s, statuses ${JSON.stringify(statuses)}`);
      }
      agent.destroy();
      console.log(`\nConsole request — the console's CPU per request (ms), ${connections} keep-alive connections, closed loop\n${table(['kind', 'requests', 'CPU ms / request', 'wall s', 'statuses'], figures.map((f) => [f.kind, f.requests, fmt(f.cpuMsPerRequest), f.wallS, JSON.stringify(f.statuses)]))}\n`);
      writeResult(`console-request${tag}.json`, { benchmark: 'console-request', machine: machine(), plan: { requests: n, kinds, connections, tasks: TASKS }, figures });
      return figures.map((f): [string, string] => [`console-request ${f.kind}`, `${f.cpuMsPerRequest} ms CPU a request`]);
    } finally {
      await c.close(false);
    }
  },
};
