import { execFileSync } from 'node:child_process';
import { Agent, type ClientRequest } from 'node:http';
import { join } from 'node:path';
import { BatonApiError, BatonClient } from '@baton/executor-sdk/client';
import { TenantEntity } from '@baton/persistence';
import type { DemoInvocationRecord } from '../../../apps/demo-executor/src';
import { Cluster } from '../../../test/cluster/support/cluster';
import { startConsoleProcess } from '../../../test/cluster/support/processes';
import { insertApiKey } from '../../../test/console/console-test-kit';
import { AT_DEFAULTS } from '../../scenarios/run-now';
import { JsonlTail } from '../jsonl-tail';
import { keepAlivePost } from '../keep-alive-post';
import { SQL_TIMING_CONSOLE_SIGNAL, sqlTimingEnv, sqlTimingSnapshot } from '../sql-timing';
import type { HandlerStart } from '../peers/start-figures';
import type { PeerServer } from '../peers/private-server';
import { UNANSWERED, type OnDemandTarget, type Outcome, type WorkItem } from './target';

/**
 * Baton in cluster mode for the on-demand benchmark: one console process, two engine processes
 * at Baton's defaults (run-now's AT_DEFAULTS), two demo executors, on a MariaDB of the benchmark
 * alone; TASKS manual tasks created through the API, and submissions as a user sends them:
 * `POST /api/tasks/:id/trigger` with params and an API key, over CONNECTIONS keep-alive HTTP
 * connections (a request waits in the client for a free one, as it would in a user's pool). The
 * handler `noop` records its start with the run id; the run's params carry the submission's key.
 */

export const CONNECTIONS = 16;

export interface BatonOptions {
  tasks: number;
  mariadb: PeerServer;
  /** The tenant's dispatch rate and burst (runs/s). */
  tenant: { ratePerSec: number; burst: number };
  /** The demo executors' settings beyond the cluster harness's (BATON_EXECUTOR_CONCURRENCY, …). */
  executorEnv: Record<string, string>;
  /** `--profile`: the directory the console's, engines' and executors' CPU profiles are written to (null: not profiled). */
  profileDir: string | null;
  /** `--sql-timing`: the console and engines time every SQL statement they send (bench/support/sql-timing.cjs). */
  sqlTiming: boolean;
  /** `--engine-env`: settings for both engines beyond their defaults (e.g. BATON_ACK_HOLD_MS=0); empty: none. */
  engineEnv: Record<string, string>;
  /** `--client-in-flight`: the client series' BatonClient `maxBatchesInFlight` (undefined: the SDK's default). */
  clientInFlight?: number;
  /** `--baton-nodes`: 2 nodes (console and engine in one process) instead of 1 console and 2 engines; submissions go to the first. */
  nodes?: boolean;
  /** `--other-tenants`: this many more tenants in the engines' group, with no task and no executor (a platform's other customers, idle). */
  otherTenants: number;
}

/** `count` idle tenants in `engineGroup` (ids `other-1`, …), inserted 1,000 a statement. */
async function insertOtherTenants(c: Cluster, engineGroup: string, count: number): Promise<void> {
  const now = Date.now();
  for (let from = 1; from <= count; from += 1_000) {
    const rows = Array.from({ length: Math.min(1_000, count - from + 1) }, (_, i) => ({
      id: `other-${from + i}`,
      name: `Other tenant ${from + i}`,
      engineGroup,
      executorSecret: `other-secret-${from + i}`,
      createdAt: now,
    }));
    await c.ds.getRepository(TenantEntity).insert(rows);
  }
}

/**
 * Waits until the engines' history job has visited each of the other tenants once (its cursor
 * made, its first purge done): a platform's tenants are not all new at once, and the figures are
 * those of one running for a while. How long that first turn took is logged.
 */
async function awaitFirstHistoryTurn(c: Cluster, count: number, log: (s: string) => void): Promise<void> {
  const started = Date.now();
  for (;;) {
    const [{ n }] = (await c.ds.query(`SELECT COUNT(*) AS n FROM history_cursors WHERE tenant_id LIKE 'other-%' AND purge_due_at > 0`)) as Array<{ n: number | string }>;
    if (Number(n) >= count) break;
    if (Date.now() - started > 10 * 60_000) throw new Error(`the history job visited ${n} of ${count} other tenants in 10 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  log(`  the history job's first turn over ${count} other tenants: done ${((Date.now() - started) / 1000).toFixed(0)} s after the engines started`);
}

/**
 * Baton's batch submission: one `POST /api/runs/batch` through `post` carrying `items` (each a run
 * of task `taskIds[item.task]` with params `{ k: item.key, task: item.task }`, as `submit` sends
 * them), each with its own result; an outcome per item in their order, with the run id of each
 * accepted one (a start is then matched to its submission without reading the run's params back).
 */
type BatchPost = (post: Post, taskIds: readonly number[], items: readonly WorkItem[]) => Promise<Array<Outcome & { runId?: number }>>;
const batonBatchSubmit: BatchPost = async (post, taskIds, items) => {
  const answer = await post('/api/runs/batch', { runs: items.map((item) => ({ taskId: taskIds[item.task], params: { k: item.key, task: item.task } })) });
  if (answer.status !== 200) return items.map(() => ({ ok: false, error: `HTTP ${answer.status} ${answer.body.slice(0, 200)}` }));
  const { results } = JSON.parse(answer.body) as { results: Array<{ status: number; run?: { id: number }; error?: { message: string } }> };
  return results.map((r) => (r.run ? { ok: true, runId: r.run.id } : { ok: false, error: `${r.status} ${r.error?.message ?? ''}` }));
};

/** MariaDB's statement counters read per step (server-wide: the server is this benchmark's alone; the bench's own reads included). */
// Statements, and the rows written beneath them (Handler_write: rows inserted; Handler_update: rows changed).
const STORE_COUNTERS = ['Questions', 'Com_commit', 'Com_select', 'Com_insert', 'Com_update', 'Com_delete', 'Handler_write', 'Handler_update'] as const;

/** A POST through the benchmark's keep-alive pool: the answer's status and body. */
type Post = (path: string, body: unknown) => Promise<{ status: number; body: string }>;

export async function startBaton(options: BatonOptions, log: (s: string) => void): Promise<OnDemandTarget> {
  const c = await Cluster.open('od', 'acme', { mysqlServerUrl: options.mariadb.url });
  try {
    await c.ds.getRepository(TenantEntity).update({ id: c.tenant.id }, options.tenant);
    await insertOtherTenants(c, c.tenant.engineGroup, options.otherTenants);
    const profiled: Record<string, string> = options.profileDir ? { NODE_OPTIONS: `-r ${join(__dirname, '..', 'cpu-profile.cjs')}`, BENCH_PROFILE_DIR: options.profileDir } : {};
    const timingFile = (name: string) => join(c.dir, `sql-timing-${name}.json`);
    const timed = (name: string, signal?: NodeJS.Signals): Record<string, string> => {
      if (!options.sqlTiming) return profiled;
      const env = sqlTimingEnv(timingFile(name), signal);
      return { ...profiled, ...env, NODE_OPTIONS: [profiled.NODE_OPTIONS, env.NODE_OPTIONS].filter(Boolean).join(' ') };
    };
    if (options.nodes && options.sqlTiming) throw new Error('--baton-nodes: not with --sql-timing');
    // A node is a console too: Nest's shutdown hooks take SIGUSR2, so its profiler listens for SIGWINCH.
    const nodeProfiled: Record<string, string> = options.profileDir ? { ...profiled, BENCH_PROFILE_SIGNAL: 'SIGWINCH' } : {};
    const engines = await Promise.all(
      [1, 2].map(async (i) => (await (options.nodes ? c.startNodes(1, { ...AT_DEFAULTS, ...options.engineEnv, ...nodeProfiled }) : c.startEngines(1, { ...AT_DEFAULTS, ...options.engineEnv, ...timed(`engine-${i}`) })))[0]),
    );
    const executors = await c.startExecutors(2, { ...options.executorEnv, ...profiled });
    if (options.otherTenants > 0) await awaitFirstHistoryTurn(c, options.otherTenants, log);
    // The console shuts down on SIGUSR2 (Nest's shutdown hooks): its profiler listens for SIGWINCH.
    const consoleProfiled: Record<string, string> = options.profileDir ? { BENCH_PROFILE_SIGNAL: 'SIGWINCH' } : {};
    const startConsole = (port: string) => startConsoleProcess({ name: 'console', logFile: join(c.dir, 'console.log'), env: { BATON_DB_URL: c.db.url, BATON_CONSOLE_PORT: port, BATON_HOST: '127.0.0.1', ...timed('console', SQL_TIMING_CONSOLE_SIGNAL), ...consoleProfiled } });
    // With nodes, the first node is the console the submissions go to.
    let console_: { pid: number; url: string; exited: Promise<unknown> } = options.nodes ? engines[0] : await startConsole('0');
    const key = await insertApiKey(c.ds, c.tenant.id, 'TENANT_ADMIN');
    const url = new URL(console_.url);
    // An idle connection is dropped after 4 s, before the console's (Node's default keepAliveTimeout,
    // 5 s) closes it under a request just sent on it ("socket hang up" after a pause).
    const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS, timeout: 4_000 });
    const pending = new Set<{ req: ClientRequest; settle: (o: Outcome) => void }>();

    /** A POST through the keep-alive pool; `req` lets a submission be abandoned. */
    const send = keepAlivePost(agent, url, key);
    const post: Post = (path, body) => send(path, body).answer;
    // The client series: what a Node service sends through the SDK, with its defaults (connections as the other series');
    // given every node, as a service of a cluster of nodes is: the first while it takes connections.
    const client = new BatonClient({ url: options.nodes ? engines.map((e) => e.url) : console_.url, apiKey: key['X-API-Key'], maxSockets: CONNECTIONS, maxBatchesInFlight: options.clientInFlight });

    const taskIds: number[] = [];
    for (let i = 0; i < options.tasks; i++) {
      const res = await post('/api/tasks', { name: `on-demand-${i}`, executorApp: 'demo', handler: 'noop', trigger: { kind: 'MANUAL' }, params: { task: i } });
      if (res.status !== 201) throw new Error(`POST /api/tasks → ${res.status} ${res.body.slice(0, 300)}`);
      taskIds.push((JSON.parse(res.body) as { id: number }).id);
    }

    // The events series: task i's twin starts on event `od.<i>`, its params the whole payload.
    const eventTaskIds: number[] = [];
    for (let i = 0; i < options.tasks; i++) {
      const res = await post('/api/tasks', { name: `on-demand-event-${i}`, executorApp: 'demo', handler: 'noop', trigger: { kind: 'EVENT', event: `od.${i}` } });
      if (res.status !== 201) throw new Error(`POST /api/tasks → ${res.status} ${res.body.slice(0, 300)}`);
      eventTaskIds.push((JSON.parse(res.body) as { id: number }).id);
    }

    const keyOfRun = new Map<number, string>();
    /** When each submission got one of the pool's connections (it waits in the client while all are busy). */
    const onWireAt = new Map<string, number>();
    const tails = executors.map((e) => new JsonlTail<DemoInvocationRecord>(e.recordFile));
    /** Starts whose run's answer has not come (a handler may start before its submission is answered). */
    let unmapped: Array<DemoInvocationRecord & { seenAt: number }> = [];

    log(`  Baton: console ${console_.url}, engines ${engines.map((e) => e.nodeId).join(', ')}, ${executors.length} executors, ${options.tasks} tasks`);
    return {
      system: 'baton',
      settings: {
        mode: options.nodes ? 'cluster: 2 nodes (`baton node`: console and engine in one process; submissions to the first), 2 demo executors (noop)' : 'cluster: 1 console process, 2 engine processes, 2 demo executors (noop)',
        mariadb: execFileSync('mariadb', ['--no-defaults', '-h127.0.0.1', `-P${options.mariadb.port}`, '-ubaton', '-pbaton', '-Ne', "SELECT CONCAT(VERSION(), ', innodb_flush_log_at_trx_commit ', @@innodb_flush_log_at_trx_commit, ', log_bin ', @@log_bin)"], { encoding: 'utf8' }).trim(),
        engines: "Baton's defaults (heartbeat, lease, watchdog, claim)",
        console: "Baton's defaults",
        executorEnv: options.executorEnv,
        tenant: options.tenant,
        submission: `POST /api/tasks/:id/trigger {params: {k}} with an API key (TENANT_ADMIN), ${options.tasks} MANUAL tasks, ${CONNECTIONS} keep-alive HTTP connections`,
      },
      pids: {
        ...(options.nodes ? {} : { console: console_.pid }),
        ...Object.fromEntries(engines.map((e) => [e.name, e.pid])),
        mariadb: options.mariadb.pid,
        ...Object.fromEntries(executors.map((e) => [e.name, e.pid])),
      },
      submit(item) {
        return new Promise<Outcome>((resolve) => {
          const { req, answer } = send(`/api/tasks/${taskIds[item.task]}/trigger`, { params: { k: item.key, task: item.task } });
          req.once('socket', () => onWireAt.set(item.key, Date.now()));
          const entry = { req, settle: resolve };
          pending.add(entry);
          const done = (o: Outcome) => {
            if (pending.delete(entry)) resolve(o);
          };
          answer.then(
            ({ status, body }) => {
              if (status < 200 || status >= 300) return done({ ok: false, error: `HTTP ${status} ${body.slice(0, 120)}` });
              keyOfRun.set((JSON.parse(body) as { id: number }).id, item.key);
              done({ ok: true });
            },
            (err: Error) => done({ ok: false, error: err.message }),
          );
        });
      },
      async submitViaClient(item) {
        try {
          const { run } = await client.submit({ taskId: taskIds[item.task], params: { k: item.key, task: item.task } });
          keyOfRun.set(run.id, item.key);
          return { ok: true };
        } catch (err) {
          return { ok: false, error: err instanceof BatonApiError ? `HTTP ${err.status} ${err.message.slice(0, 120)}` : (err as Error).message };
        }
      },
      async emitViaClient(item) {
        try {
          const event = await client.emit({ name: `od.${item.task}`, payload: { k: item.key, task: item.task } });
          const runId = event.runIds[0];
          if (runId === undefined) return { ok: false, error: 'no run started' };
          keyOfRun.set(runId, item.key);
          return { ok: true };
        } catch (err) {
          return { ok: false, error: err instanceof BatonApiError ? `HTTP ${err.status} ${err.message.slice(0, 120)}` : (err as Error).message };
        }
      },
      async submitBatch(items) {
        const outcomes = await batonBatchSubmit(post, taskIds, items);
        outcomes.forEach((o, i) => o.runId !== undefined && keyOfRun.set(o.runId, items[i].key));
        return outcomes;
      },
      async emitEvents(items) {
        const event = (item: WorkItem) => ({ name: `od.${item.task}`, payload: { k: item.key, task: item.task } });
        const answer = await post('/api/events', items.length === 1 ? event(items[0]) : { events: items.map(event) });
        if (answer.status !== 200 && answer.status !== 201) return items.map(() => ({ ok: false, error: `HTTP ${answer.status} ${answer.body.slice(0, 200)}` }));
        const emitted = items.length === 1 ? [{ status: answer.status, event: JSON.parse(answer.body) as { runIds: number[] } }] : (JSON.parse(answer.body) as { results: Array<{ status: number; event?: { runIds: number[] }; error?: { message: string } }> }).results;
        return emitted.map((r, i) => {
          const runId = r.event?.runIds[0];
          if (runId === undefined) return { ok: false, error: `${r.status} ${'error' in r ? (r.error?.message ?? '') : 'no run started'}` };
          keyOfRun.set(runId, items[i].key);
          return { ok: true };
        });
      },
      async newStarts() {
        const now = Date.now();
        unmapped.push(...tails.flatMap((t) => t.next()).map((r) => ({ ...r, seenAt: now })));
        // Runs whose answer is late or never came: their key from the run's params.
        const stale = unmapped.filter((r) => !keyOfRun.has(r.runId) && now - r.seenAt > 1_000).map((r) => r.runId);
        for (let i = 0; i < stale.length; i += 1000) {
          const rows: Array<{ id: number | string; params: string | null }> = await c.ds.query(`SELECT id, params FROM runs WHERE id IN (${stale.slice(i, i + 1000).map(() => '?').join(',')})`, stale.slice(i, i + 1000));
          for (const row of rows) {
            const k = (JSON.parse(row.params ?? 'null') as { k?: string } | null)?.k;
            if (k) keyOfRun.set(Number(row.id), k);
          }
        }
        const starts: HandlerStart[] = [];
        unmapped = unmapped.filter((r) => {
          const k = keyOfRun.get(r.runId);
          if (k === undefined) return true;
          starts.push({ k, pid: r.pid, at: r.at });
          return false;
        });
        return starts;
      },
      async stages(sends) {
        const runOfKey = new Map([...keyOfRun].map(([run, k]) => [k, run]));
        const ids = sends.map((s) => runOfKey.get(s.key)).filter((id): id is number => id !== undefined);
        const rows = new Map<number, { created: number; dispatched: number | null }>();
        for (let i = 0; i < ids.length; i += 1000) {
          const chunk = ids.slice(i, i + 1000);
          const found: Array<{ id: number | string; created_at: number | string; dispatched: number | string | null }> = await c.ds.query(
            `SELECT id, created_at, COALESCE(first_dispatched_at, dispatched_at) AS dispatched FROM runs WHERE id IN (${chunk.map(() => '?').join(',')})`,
            chunk,
          );
          for (const r of found) rows.set(Number(r.id), { created: Number(r.created_at), dispatched: r.dispatched === null ? null : Number(r.dispatched) });
        }
        const out: Record<string, number[]> = { 'sent → on a connection': [], 'on a connection → answered': [], 'on a connection → run created': [], 'run created → dispatched': [], 'dispatched → started': [] };
        for (const s of sends) {
          const wire = onWireAt.get(s.key);
          if (wire !== undefined) out['sent → on a connection'].push(wire - s.sentAt);
          if (wire !== undefined && s.answeredAt !== null) out['on a connection → answered'].push(s.answeredAt - wire);
          const row = rows.get(runOfKey.get(s.key) ?? -1);
          if (!row) continue;
          if (wire !== undefined) out['on a connection → run created'].push(row.created - wire);
          if (row.dispatched === null) continue;
          out['run created → dispatched'].push(row.dispatched - row.created);
          if (s.startedAt !== undefined) out['dispatched → started'].push(s.startedAt - row.dispatched);
        }
        return out;
      },
      async storeCounters() {
        const rows: Array<{ Variable_name: string; Value: string }> = await c.ds.query(`SHOW GLOBAL STATUS WHERE Variable_name IN (${STORE_COUNTERS.map(() => '?').join(',')})`, [...STORE_COUNTERS]);
        return Object.fromEntries(rows.map((r) => [r.Variable_name, Number(r.Value)]));
      },
      async kill(what) {
        if (options.nodes) {
          // The first node is both the console submissions go to and an engine: killed, then started again on its port.
          const victim = console_;
          process.kill(victim.pid, 'SIGKILL');
          await victim.exited;
          const killedAt = Date.now();
          console_ = (await c.startNodes(1, { ...AT_DEFAULTS, ...options.engineEnv, BATON_CONSOLE_PORT: url.port }))[0];
          return `killed node ${engines[0].nodeId} (pid ${victim.pid}: console and engine); started again on port ${url.port} in ${Date.now() - killedAt} ms, its runs taken over meanwhile`;
        }
        const victim = what === 'engine' ? engines[0] : console_;
        process.kill(victim.pid, 'SIGKILL');
        await victim.exited;
        if (what === 'engine') return `killed engine ${engines[0].nodeId} (pid ${victim.pid}); the other engine takes its runs over`;
        // One console and nothing in front of it: submissions fail until it is back on its port.
        const killedAt = Date.now();
        console_ = await startConsole(url.port);
        return `killed the console (pid ${victim.pid}); started again on port ${url.port} in ${Date.now() - killedAt} ms`;
      },
      sqlTiming: options.sqlTiming
        ? async () => ({
            console: await sqlTimingSnapshot(console_.pid, timingFile('console'), SQL_TIMING_CONSOLE_SIGNAL),
            ...Object.fromEntries(await Promise.all(engines.map(async (e, i) => [`engine-${i + 1}`, await sqlTimingSnapshot(e.pid, timingFile(`engine-${i + 1}`))]))),
          })
        : undefined,
      startProfiling: options.profileDir
        ? () => {
            for (const p of executors) process.kill(p.pid, 'SIGUSR2');
            // Engines take SIGUSR2; a console, and a node (a console too), SIGWINCH.
            for (const p of engines) process.kill(p.pid, options.nodes ? 'SIGWINCH' : 'SIGUSR2');
            if (!options.nodes) process.kill(console_.pid, 'SIGWINCH');
          }
        : undefined,
      abandonPending() {
        for (const entry of [...pending]) {
          pending.delete(entry);
          entry.req.destroy();
          entry.settle({ ok: false, error: UNANSWERED });
        }
      },
      async close() {
        agent.destroy();
        client.close();
        await c.close(false);
      },
    };
  } catch (err) {
    await c.close(true);
    throw err;
  }
}
