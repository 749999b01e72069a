import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TenantEntity } from '@baton/persistence';
import { Cluster, sleep } from '../../test/cluster/support/cluster';
import { percentile } from '../../test/cluster/support/figures';
import { startConsoleProcess } from '../../test/cluster/support/processes';
import { insertTasks, seedTenant, type SeededTenant } from '../../test/cluster/support/seed';
import { insertApiKey } from '../../test/console/console-test-kit';
import { cpuSeconds, machine, writeResult } from '../support/infra';
import { insertRuns, pendingRun } from '../support/runs';
import { option, type Scenario } from '../support/scenario';
import { table } from '../support/table';
import { BURST_EXECUTOR_ENV, BURST_TENANT } from './burst';

/**
 * History at production scale (issue 13 item 3): N ended runs over 7 days, 10 tenants × 100
 * tasks (multi-row INSERTs straight into MariaDB, with a log line pair on every 100th run and
 * 10,000 alarms a tenant), one engine whose history job rolls them into the statistics, and
 * the console as its own process. Then, through the console's REST API with an API key, each
 * list and filter a user has — first page and a deep cursor page —, run detail, tasks with
 * last results, statistics for 1 h / 24 h / 7 d, alarms: p50/p95 of 20 calls, the console's
 * peak RSS, and EXPLAIN of the run list's shapes. Last, a 1,000-run burst of another tenant
 * fired alone and again while the engine purges 4 of the 7 days (retention set to 3 days):
 * the purge's rate and the burst's lateness against the no-purge case.
 */

const DAY = 86_400_000;
const SPAN_MS = 7 * DAY;
const TENANTS = 10;
const TASKS_PER_TENANT = 100;
const CALLS = 20;
const STATES: Array<[string, number]> = [
  ['SUCCEEDED', 0.9],
  ['FAILED', 0.06],
  ['TIMED_OUT', 0.02],
  ['CANCELLED', 0.01],
  ['SKIPPED', 0.01],
];

interface Timing {
  call: string;
  p50: number;
  p95: number;
  rows: number;
}

interface HistoryCase {
  runs: number;
  seed: { ms: number; rowsPerSec: number; dbSizeMb: number };
  rollup: { ms: number; runsPerSec: number; engineCpuSec: number };
  api: Timing[];
  consolePeakRssMb: number;
  explain: Array<{ shape: string; key: string; type: string; rows: number; extra: string }>;
  purge: { runsPerSec: number; purgedRuns: number; windowMs: number; apiDuring: Timing[] };
  burst: { alone: { p50: number; p99: number }; duringPurge: { p50: number; p99: number }; ratioP99: number };
}

function pick(i: number, weights: Array<[string, number]>): string {
  let x = ((i * 2_654_435_761) % 1_000_003) / 1_000_003;
  for (const [value, w] of weights) {
    if (x < w) return value;
    x -= w;
  }
  return weights[0][0];
}

const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** N ended runs over the 7 days before `end`, spread evenly over every task, in time order. */
async function seedRuns(c: Cluster, tenants: SeededTenant[], taskIds: number[][], n: number, end: number, log: (s: string) => void): Promise<void> {
  const tasks = tenants.flatMap((t, ti) => taskIds[ti].map((id) => ({ tenant: t, id })));
  const perTask = Math.ceil(n / tasks.length);
  const gap = SPAN_MS / perTask;
  const start = end - SPAN_MS;
  const CHUNK = 2000;
  let rows: string[] = [];
  let written = 0;
  const flush = async () => {
    if (rows.length === 0) return;
    const result = (await c.ds.query(
      `INSERT INTO runs (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at,
                         dispatched_at, accepted_at, started_at, finished_at, error, created_at, updated_at) VALUES ${rows.join(',')}`,
    )) as { insertId: number; affectedRows: number };
    // Two log lines on every 100th run of the chunk (ids of one multi-row INSERT are consecutive).
    await c.ds.query(
      `INSERT INTO run_logs (tenant_id, run_id, attempt, at, level, message)
       SELECT tenant_id, id, 1, COALESCE(started_at, finished_at), 'info', CONCAT('step ', n.k, ' of run ', id) FROM runs, (SELECT 1 AS k UNION ALL SELECT 2) n
        WHERE id BETWEEN ? AND ? AND id % 100 = 0`,
      [result.insertId, result.insertId + result.affectedRows - 1],
    );
    written += rows.length;
    rows = [];
  };
  const started = Date.now();
  let i = 0;
  for (let j = 0; j < perTask && written + rows.length < n; j++) {
    for (let k = 0; k < tasks.length && written + rows.length < n; k++, i++) {
      const { tenant, id } = tasks[k];
      const at = Math.round(start + j * gap + (k * gap) / tasks.length);
      const state = pick(i, STATES);
      const cause = pick(i * 7 + 3, [
        ['SCHEDULE', 0.97],
        ['MANUAL', 0.02],
        ['DEPENDENCY', 0.01],
      ]);
      const late = 2 + (i % 23);
      const ran = state === 'SKIPPED' ? null : 50 + ((i * 37) % 2000);
      const dispatched = state === 'SKIPPED' ? 'NULL' : at + late;
      const startedAt = ran === null ? 'NULL' : at + late + 3;
      const finished = ran === null ? at + late : at + late + 3 + ran;
      const error = state === 'FAILED' ? sqlString(`Error: planned failure ${i}\n    at run (dist/jobs/report.js:12:7)`) : state === 'TIMED_OUT' ? sqlString('timed out') : 'NULL';
      rows.push(
        `(${sqlString(tenant.id)},${id},${sqlString(tenant.engineGroup)},'${state}','${cause}','s:${at}:${j}',1,0,'{"region":"r-${i % 97}","order":${i}}',${at},${at},${dispatched},${dispatched},${startedAt},${finished},${error},${at},${finished})`,
      );
      if (rows.length >= CHUNK) await flush();
    }
    if (j % Math.max(1, Math.floor(perTask / 10)) === 0 && j > 0) log(`  seeded ${written.toLocaleString('en-US')} runs (${Math.round((written * 1000) / (Date.now() - started))}/s)`);
  }
  await flush();
}

async function seedAlarms(c: Cluster, tenants: SeededTenant[], taskIds: number[][], end: number): Promise<void> {
  for (const [ti, tenant] of tenants.entries()) {
    for (let chunk = 0; chunk < 10; chunk++) {
      const rows: string[] = [];
      for (let i = 0; i < 1000; i++) {
        const k = chunk * 1000 + i;
        const at = end - SPAN_MS + Math.round((k * SPAN_MS) / 10_000);
        const type = pick(k, [
          ['FAILED', 0.6],
          ['TIMEOUT', 0.2],
          ['START_LATE', 0.2],
        ]);
        rows.push(
          `('h-${tenant.id}-${k}',${sqlString(tenant.id)},'${type}','${type === 'START_LATE' ? 'WARNING' : 'CRITICAL'}',${taskIds[ti][k % TASKS_PER_TENANT]},NULL,NULL,'${type} of task ${k % TASKS_PER_TENANT}',NULL,1,${at},${at + 5},${k % 2 ? at + 60_000 : 'NULL'},${k % 2 ? "'admin'" : 'NULL'})`,
        );
      }
      await c.ds.query(`INSERT INTO alarms (uid, tenant_id, type, severity, task_id, run_id, executor_id, message, data, count, raised_at, published_at, acked_at, acked_by) VALUES ${rows.join(',')}`);
    }
  }
}

async function timeCalls(baseUrl: string, key: Record<string, string>, call: string, path: string, calls = CALLS): Promise<Timing> {
  const ms: number[] = [];
  let rows = 0;
  for (let i = 0; i < calls + 3; i++) {
    const t0 = performance.now();
    const res = await fetch(`${baseUrl}${path}`, { headers: key });
    const text = await res.text();
    const took = performance.now() - t0;
    if (res.status !== 200) throw new Error(`GET ${path} → ${res.status} ${text.slice(0, 300)}`);
    if (i >= 3) ms.push(took); // three warm-up calls
    const body = JSON.parse(text) as { items?: unknown[] } | unknown[];
    rows = Array.isArray(body) ? body.length : Array.isArray(body.items) ? body.items.length : 1;
  }
  return { call, p50: +percentile(ms, 50).toFixed(1), p95: +percentile(ms, 95).toFixed(1), rows };
}

/** The cursor `pages` pages deep into a list (limit 50). */
async function deepCursor(baseUrl: string, key: Record<string, string>, path: string, pages: number): Promise<string> {
  let cursor = '';
  for (let i = 0; i < pages; i++) {
    const res = await fetch(`${baseUrl}${path}${path.includes('?') ? '&' : '?'}limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers: key });
    const body = (await res.json()) as { nextCursor: string | null };
    if (!body.nextCursor) break;
    cursor = body.nextCursor;
  }
  return cursor;
}

async function burstOnce(c: Cluster, taskIds: number[], n: number, log: (s: string) => void): Promise<{ p50: number; p99: number }> {
  const now = Date.now();
  const due = Math.ceil((now + 4_000) / 1000) * 1000;
  const tag = `hb${due}`;
  await insertRuns(
    c.ds,
    Array.from({ length: n }, (_, i) => pendingRun(c.tenant, taskIds[i % taskIds.length], due, `${tag}:${i}`, now)),
  );
  const deadline = due + 120_000;
  for (;;) {
    const [{ ended }] = (await c.ds.query(`SELECT COUNT(*) AS ended FROM runs WHERE fire_key LIKE ? AND finished_at IS NOT NULL`, [`${tag}:%`])) as Array<{ ended: number | string }>;
    if (Number(ended) >= n) break;
    if (Date.now() > deadline) {
      log(`  burst: ${ended}/${n} ended after 2 min`);
      break;
    }
    await sleep(250);
  }
  const rows = (await c.ds.query(`SELECT started_at FROM runs WHERE fire_key LIKE ? AND started_at IS NOT NULL`, [`${tag}:%`])) as Array<{ started_at: number | string }>;
  const late = rows.map((r) => Number(r.started_at) - due);
  return { p50: percentile(late, 50), p99: percentile(late, 99) };
}

async function runCase(n: number, log: (s: string) => void): Promise<HistoryCase> {
  const c = await Cluster.open(`hist${Math.round(n / 1000)}k`);
  let failed = true;
  try {
    await c.ds.getRepository(TenantEntity).update({ id: c.tenant.id }, BURST_TENANT);
    const tenants: SeededTenant[] = [];
    const taskIds: number[][] = [];
    for (let t = 0; t < TENANTS; t++) {
      const tenant = await seedTenant(c.ds, { id: `h${t}`, engineGroup: c.tenant.engineGroup });
      tenants.push(tenant);
      taskIds.push(await insertTasks(c.ds, tenant, Array.from({ length: TASKS_PER_TENANT }, (_, i) => ({ name: `job-${i}`, trigger: { kind: 'MANUAL' as const }, handler: 'noop' }))));
    }
    const end = Date.now() - 60_000;
    const seedStart = Date.now();
    await seedRuns(c, tenants, taskIds, n, end, log);
    await seedAlarms(c, tenants, taskIds, end);
    const seedMs = Date.now() - seedStart;
    await c.ds.query('ANALYZE TABLE runs, run_logs, alarms');
    const [{ mb }] = (await c.ds.query(
      `SELECT ROUND(SUM(data_length + index_length) / 1048576) AS mb FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name IN ('runs', 'run_logs', 'alarms')`,
    )) as Array<{ mb: number | string }>;
    log(`  seeded ${n.toLocaleString('en-US')} runs, ${TENANTS * 10_000} alarms in ${(seedMs / 1000).toFixed(0)} s; runs + logs + alarms: ${mb} MiB`);

    // The history job catches up with 7 days of every tenant.
    const rollStart = Date.now();
    const [engine] = await c.startEngines(1, { BATON_HISTORY_INTERVAL_MS: '2000', BATON_LOG_LEVEL: 'warn' });
    const cpu0 = cpuSeconds(engine.pid);
    for (;;) {
      const [{ behind }] = (await c.ds.query(`SELECT COUNT(*) AS behind FROM tenants t LEFT JOIN history_cursors h ON h.tenant_id = t.id WHERE t.id LIKE 'h%' AND (h.rolled_until IS NULL OR h.rolled_until < ?)`, [end])) as Array<{ behind: number | string }>;
      if (Number(behind) === 0) break;
      if (Date.now() - rollStart > 30 * 60_000) throw new Error('the history job did not catch up within 30 minutes');
      await sleep(1000);
    }
    const rollMs = Date.now() - rollStart;
    const engineCpuSec = +(cpuSeconds(engine.pid) - cpu0).toFixed(1);
    log(`  history job rolled ${n.toLocaleString('en-US')} runs in ${(rollMs / 1000).toFixed(0)} s (engine CPU ${engineCpuSec} s)`);

    // The console as a user runs it: compiled (`baton console`), its memory measured alone.
    const consoleProc = await startConsoleProcess({
      name: 'console',
      logFile: join(c.dir, 'console.log'),
      env: { BATON_DB_URL: c.db.url, BATON_CONSOLE_PORT: '0', BATON_LOG_LEVEL: 'warn' },
      compiled: true,
      timeoutMs: 300_000,
    });
    const url = `${consoleProc.url}/api`;
    const tenant = tenants[0];
    const key = await insertApiKey(c.ds, tenant.id, 'TENANT_ADMIN');
    const task = taskIds[0][0];
    const [{ id: runId }] = (await c.ds.query(`SELECT id FROM runs WHERE tenant_id = ? AND id % 100 = 0 ORDER BY id DESC LIMIT 1`, [tenant.id])) as Array<{ id: number }>;
    const deep = await deepCursor(url, key, '/runs', 100);
    const deepFailed = await deepCursor(url, key, '/runs?state=FAILED', 20);
    const dayAgo = Date.now() - DAY;
    const calls: Array<[string, string]> = [
      ['runs: first page', '/runs'],
      ['runs: page 101 (cursor)', `/runs?limit=50&cursor=${encodeURIComponent(deep)}`],
      ['runs: task', `/runs?taskId=${task}`],
      ['runs: state=FAILED', '/runs?state=FAILED'],
      ['runs: state=FAILED page 21', `/runs?state=FAILED&limit=50&cursor=${encodeURIComponent(deepFailed)}`],
      ['runs: state=TIMED_OUT,CANCELLED', '/runs?state=TIMED_OUT,CANCELLED'],
      ['runs: state=PENDING (none)', '/runs?state=PENDING'],
      ['runs: cause=MANUAL', '/runs?cause=MANUAL'],
      ['runs: cause=DEPENDENCY&state=FAILED', '/runs?cause=DEPENDENCY&state=FAILED'],
      ['runs: task & state=FAILED', `/runs?taskId=${task}&state=FAILED`],
      ['runs: task & cause=MANUAL', `/runs?taskId=${task}&cause=MANUAL`],
      ['runs: a day ago, 1 h window', `/runs?from=${dayAgo}&to=${dayAgo + 3_600_000}`],
      ['runs: 1 h window & state=FAILED', `/runs?from=${dayAgo}&to=${dayAgo + 3_600_000}&state=FAILED`],
      ['run detail (with logs)', `/runs/${runId}`],
      ['tasks', '/tasks?limit=100'],
      ['tasks: last results', '/ui/task-summaries'],
      ['stats 1 h', '/stats?windowMs=3600000'],
      ['stats 24 h', '/stats?windowMs=86400000'],
      ['stats 7 d', '/stats?windowMs=604800000'],
      ['stats 7 d, one task', `/tasks/${task}/stats?windowMs=604800000`],
      ['stats series 24 h', '/ui/stats-series?windowMs=86400000'],
      // Search (issue 24): a rare text (every call walks its whole slice), a common one, params; a day and the whole week.
      ['runs search: rare error text, 24 h', `/runs/search?q=${encodeURIComponent('planned failure 1234567')}&from=${dayAgo}&to=${Date.now()}`],
      ['runs search: rare error text, 7 d', `/runs/search?q=${encodeURIComponent('planned failure 1234567')}&from=${Date.now() - SPAN_MS}&to=${Date.now()}`],
      ['runs search: common error text, 7 d', `/runs/search?q=${encodeURIComponent('timed out')}&from=${Date.now() - SPAN_MS}&to=${Date.now()}`],
      ['runs search: params, 24 h', `/runs/search?field=params&q=${encodeURIComponent('"r-42"')}&from=${dayAgo}&to=${Date.now()}`],
      ['runs search: task, error, 7 d', `/runs/search?taskId=${task}&q=${encodeURIComponent('planned failure')}&from=${Date.now() - SPAN_MS}&to=${Date.now()}`],
      ['alarms', '/alarms'],
      ['alarms: open', '/alarms?acked=false'],
      ['alarms: type=TIMEOUT', '/alarms?type=TIMEOUT'],
      ['alarms: task', `/alarms?taskId=${task}`],
    ];
    const api: Timing[] = [];
    for (const [call, path] of calls) api.push(await timeCalls(url, key, call, path));
    const status = readFileSync(`/proc/${consoleProc.pid}/status`, 'utf8');
    const consolePeakRssMb = Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);

    const explain: HistoryCase['explain'] = [];
    const shapes: Array<[string, string, unknown[]]> = [
      ['runs of a tenant', `SELECT id FROM runs WHERE tenant_id = ? ORDER BY scheduled_at DESC, id DESC LIMIT 51`, [tenant.id]],
      ['runs of a tenant, one (state, cause)', `SELECT id FROM runs WHERE tenant_id = ? AND state = 'FAILED' AND cause = 'MANUAL' ORDER BY scheduled_at DESC, id DESC LIMIT 51`, [tenant.id]],
      ['runs of a task, one (state, cause)', `SELECT id FROM runs WHERE tenant_id = ? AND task_id = ? AND state = 'FAILED' AND cause = 'SCHEDULE' ORDER BY scheduled_at DESC, id DESC LIMIT 51`, [tenant.id, task]],
      ['runs after a cursor', `SELECT id FROM runs WHERE tenant_id = ? AND (scheduled_at < ? OR (scheduled_at = ? AND id < ?)) ORDER BY scheduled_at DESC, id DESC LIMIT 51`, [tenant.id, dayAgo, dayAgo, 1e12]],
      ['ended in a minute (rollup, tail)', `SELECT task_id FROM runs WHERE tenant_id = ? AND finished_at >= ? AND finished_at < ?`, [tenant.id, dayAgo, dayAgo + 60_000]],
      ['live runs of a tenant (stats)', `SELECT state, COUNT(*) FROM runs WHERE engine_group = ? AND state IN ('PENDING','CLAIMED','DISPATCHED','ACCEPTED','RETRY_WAIT') AND tenant_id = ? GROUP BY state`, [tenant.engineGroup, tenant.id]],
      ['rollups of a window', `SELECT bucket_start FROM run_rollups WHERE tenant_id = ? AND task_id = 0 AND span_ms = 3600000 AND bucket_start >= ? AND bucket_start < ?`, [tenant.id, Date.now() - 7 * DAY, Date.now()]],
    ];
    for (const [shape, sql, params] of shapes) {
      const [row] = (await c.ds.query(`EXPLAIN ${sql}`, params)) as Array<{ key: string | null; type: string; rows: number | string; Extra: string | null }>;
      explain.push({ shape, key: row.key ?? '(none)', type: row.type, rows: Number(row.rows), extra: row.Extra ?? '' });
    }

    // A burst alone, then the same while the engine purges 4 of the 7 days.
    await c.startExecutors(2, BURST_EXECUTOR_ENV);
    const burstTasks = await insertTasks(c.ds, c.tenant, Array.from({ length: 10 }, (_, i) => ({ name: `burst-${i}`, trigger: { kind: 'MANUAL' as const }, handler: 'noop' })));
    await burstOnce(c, burstTasks, 200, log); // warm-up
    const alone = await burstOnce(c, burstTasks, 1000, log);
    for (const t of tenants) {
      await c.ds.query(`INSERT INTO retention_policies (tenant_id, task_id, runs_ms, logs_ms, alarms_ms, min_runs_kept, updated_at) VALUES (?, 0, ?, NULL, NULL, NULL, ?)`, [t.id, 3 * DAY, Date.now()]);
    }
    // As the console's PUT /api/retention does: the new policy is purged by at the next turn.
    await c.ds.query(`UPDATE history_cursors SET purge_due_at = 0 WHERE tenant_id LIKE 'h%'`);
    const countRuns = async () => Number(((await c.ds.query(`SELECT COUNT(*) AS n FROM runs WHERE tenant_id LIKE 'h%'`)) as Array<{ n: number | string }>)[0].n);
    const before = await countRuns();
    const purgeStart = Date.now();
    await sleep(5_000); // the purge under way
    const duringPurge = await burstOnce(c, burstTasks, 1000, log);
    const apiDuring: Timing[] = [];
    for (const [call, path] of calls.filter(([name]) => ['runs: first page', 'runs: state=FAILED', 'stats 24 h', 'stats 7 d', 'alarms'].includes(name))) apiDuring.push(await timeCalls(url, key, call, path));
    const windowMs = Date.now() - purgeStart;
    const purgedRuns = before - (await countRuns());
    await consoleProc.stop();
    failed = false;
    return {
      runs: n,
      seed: { ms: seedMs, rowsPerSec: Math.round((n * 1000) / seedMs), dbSizeMb: Number(mb) },
      rollup: { ms: rollMs, runsPerSec: Math.round((n * 1000) / rollMs), engineCpuSec },
      api,
      consolePeakRssMb,
      explain,
      purge: { runsPerSec: Math.round((purgedRuns * 1000) / windowMs), purgedRuns, windowMs, apiDuring },
      burst: { alone, duringPurge, ratioP99: +(duringPurge.p99 / Math.max(1, alone.p99)).toFixed(2) },
    };
  } finally {
    await c.close(failed);
  }
}

const label = (n: number) => (n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`);

export const history: Scenario = {
  name: 'history',
  // Seeding, rolling up and a purge take a while even at 100k runs: the quick set stays under 10 minutes without it.
  quickSet: false,
  description: 'N ended runs over 7 days, 10 tenants × 100 tasks: console API p50/p95 of every list, filter and statistic, console RSS, EXPLAIN, and a burst during a purge (by name: 100k; --full: 10M; --runs=N)',
  async run(ctx) {
    const n = Number(option(ctx.args, 'runs') ?? (ctx.full ? 10_000_000 : 100_000));
    ctx.log(`history: ${n.toLocaleString('en-US')} runs`);
    const result = await runCase(n, ctx.log);
    ctx.log(table(['call', 'p50 ms', 'p95 ms', 'rows'], result.api.map((t) => [t.call, t.p50, t.p95, t.rows])));
    ctx.log(table(['query shape', 'index', 'access', 'rows (est.)', 'extra'], result.explain.map((e) => [e.shape, e.key, e.type, e.rows, e.extra])));
    ctx.log(table(['during the purge', 'p50 ms', 'p95 ms'], result.purge.apiDuring.map((t) => [t.call, t.p50, t.p95])));
    const worst = result.api.reduce((a, b) => (b.p95 > a.p95 ? b : a));
    const tag = option(ctx.args, 'tag') ?? '';
    writeResult(`history${tag}.json`, { machine: machine(), ...result });
    return [
      [`history ${label(n)}: seed / roll-up`, `${(result.seed.ms / 1000).toFixed(0)} s (${result.seed.rowsPerSec}/s, ${result.seed.dbSizeMb} MiB) / ${(result.rollup.ms / 1000).toFixed(0)} s (${result.rollup.runsPerSec} runs/s)`],
      [`history ${label(n)}: API p95 worst`, `${worst.p95} ms (${worst.call}); console peak RSS ${result.consolePeakRssMb} MB`],
      [`history ${label(n)}: purge`, `${result.purge.runsPerSec} runs/s; burst p99 ${result.burst.alone.p99} → ${result.burst.duringPurge.p99} ms (${result.burst.ratioP99}×)`],
    ];
  },
};
