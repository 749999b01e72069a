import { appendFileSync } from 'node:fs';
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { createPool, type Pool, type ResultSetHeader } from 'mysql2/promise';
import { Coalescer } from '@baton/scheduling';

/**
 * One process of the on-demand benchmark's floor (bench/support/on-demand/floor-target.ts): the
 * least a system of Baton's shape must do for a run submitted over HTTP, on this machine, with
 * nothing else — no auth, audit, tenancy, params check, signatures, fair shares, leases or alarms.
 * Three roles, each a process of its own, as in Baton (console, engine, executor):
 *
 * - `front` takes `POST /runs {k, task}` (and `POST /runs/batch {items}`), INSERTs the runs of a
 *   turn of the event loop together (autocommitted, durable: the answer waits for the commit),
 *   answers, and tells the dispatcher the new rows (`POST /wake`).
 * - `dispatcher` claims the rows it is told of with one guarded UPDATE (PENDING → DISPATCHED,
 *   durable before the dispatch), sends them to a worker (`POST /dispatch`, the workers in turn),
 *   and writes each outcome a worker calls back (`POST /callbacks`, DISPATCHED → SUCCEEDED).
 * - `worker` answers a dispatch at once, then starts each run's handler, which appends
 *   `{"k","pid","at"}` to FLOOR_RECORD_FILE as every system's workers do (peers/worker-main.ts),
 *   and calls back.
 *
 * Every hop sends what gathered in one turn of the event loop in one message, with at most two
 * messages of a stream in flight (the rest wait and go together): Baton's own batching, its
 * Coalescer, so the floor is what its shape costs, not what a naive pipeline costs.
 *
 * Environment: FLOOR_ROLE, FLOOR_DB_URL (front, dispatcher), FLOOR_DISPATCHER_URL (front),
 * FLOOR_WORKER_URLS (dispatcher, comma-separated), FLOOR_RECORD_FILE (worker). Prints
 * `FLOOR READY <url>` once it listens on 127.0.0.1 (on FLOOR_PORT when given: the dispatcher's,
 * which the workers are started with before it).
 */

interface Run {
  id: number;
  k: string;
}

/** Baton's batching (the engine's Coalescer): what a turn of the event loop gathers goes in one message, at most two in flight, the rest together next. */
function lane<T, R = void>(send: (items: T[]) => Promise<R[]>): Coalescer<T, R> {
  return new Coalescer(send, { concurrency: 2, maxBatch: 1000 });
}

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

function post(url: string, body: unknown): Promise<string> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`${url}: HTTP ${res.statusCode} ${text}`))));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (text += d));
    req.on('end', () => {
      try {
        resolve(JSON.parse(text));
      } catch (err) {
        reject(err);
      }
    });
    req.on('error', reject);
  });
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function env(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is required`);
  return v;
}

function pool(): Pool {
  return createPool({ uri: env('FLOOR_DB_URL'), connectionLimit: 8, supportBigNumbers: true, bigNumberStrings: false });
}

function front(): (path: string, body: unknown) => Promise<[number, unknown]> {
  const db = pool();
  const dispatcher = env('FLOOR_DISPATCHER_URL');
  const wakes = lane<Run>(async (runs) => {
    await post(`${dispatcher}/wake`, { runs });
    return runs.map(() => undefined);
  });
  // One INSERT for the runs of a turn; their ids are consecutive (innodb_autoinc_lock_mode 2 gives a multi-row INSERT one range).
  const inserts = lane<{ k: string; task: number }, Run>(async (items) => {
    const now = Date.now();
    const [result] = await db.query<ResultSetHeader>('INSERT INTO floor_runs (k, task, state, created_at) VALUES ?', [items.map((i) => [i.k, i.task, 'PENDING', now])]);
    const runs = items.map((item, n) => ({ id: result.insertId + n, k: item.k }));
    for (const run of runs) void wakes.push(run).catch((err: Error) => console.error(`wake failed: ${err.message}`));
    return runs;
  });
  return async (path, body) => {
    if (path === '/runs') return [201, await inserts.push(body as { k: string; task: number })];
    if (path === '/runs/batch') return [201, { runs: await Promise.all((body as { items: Array<{ k: string; task: number }> }).items.map((i) => inserts.push(i))) }];
    return [404, { error: path }];
  };
}

function dispatcher(): (path: string, body: unknown) => Promise<[number, unknown]> {
  const db = pool();
  const workers = env('FLOOR_WORKER_URLS').split(',');
  let turn = 0;
  const dispatches = lane<Run>(async (runs) => {
    await post(`${workers[turn++ % workers.length]}/dispatch`, { runs });
    return runs.map(() => undefined);
  });
  const claims = lane<Run>(async (runs) => {
    const now = Date.now();
    const [result] = await db.query<ResultSetHeader>("UPDATE floor_runs SET state = 'DISPATCHED', dispatched_at = ? WHERE id IN (?) AND state = 'PENDING'", [now, runs.map((r) => r.id)]);
    // One dispatcher: every row it is told of is its own. A second one would need to read which it got.
    if (result.affectedRows !== runs.length) throw new Error(`claimed ${result.affectedRows} of ${runs.length}`);
    for (const run of runs) void dispatches.push(run).catch((err: Error) => console.error(`dispatch failed: ${err.message}`));
    return runs.map(() => undefined);
  });
  const outcomes = lane<number>(async (ids) => {
    await db.query("UPDATE floor_runs SET state = 'SUCCEEDED', finished_at = ? WHERE id IN (?) AND state = 'DISPATCHED'", [Date.now(), ids]);
    return ids.map(() => undefined);
  });
  return async (path, body) => {
    if (path === '/wake') {
      for (const run of (body as { runs: Run[] }).runs) void claims.push(run).catch((err: Error) => console.error(`claim failed: ${err.message}`));
      return [200, {}];
    }
    if (path === '/callbacks') {
      await Promise.all((body as { ids: number[] }).ids.map((id) => outcomes.push(id)));
      return [200, {}];
    }
    return [404, { error: path }];
  };
}

function worker(): (path: string, body: unknown) => Promise<[number, unknown]> {
  const recordFile = env('FLOOR_RECORD_FILE');
  const dispatcherUrl = env('FLOOR_DISPATCHER_URL');
  const callbacks = lane<number>(async (ids) => {
    await post(`${dispatcherUrl}/callbacks`, { ids });
    return ids.map(() => undefined);
  });
  return async (path, body) => {
    if (path !== '/dispatch') return [404, { error: path }];
    const runs = (body as { runs: Run[] }).runs;
    // The handlers start after the answer, on the worker's own time, as an executor's pool does.
    setImmediate(() => {
      for (const run of runs) {
        appendFileSync(recordFile, JSON.stringify({ k: run.k, pid: process.pid, at: Date.now() }) + '\n');
        void callbacks.push(run.id).catch((err: Error) => console.error(`callback failed: ${err.message}`));
      }
    });
    return [200, {}];
  };
}

async function main(): Promise<void> {
  const role = env('FLOOR_ROLE');
  const handle = role === 'front' ? front() : role === 'dispatcher' ? dispatcher() : role === 'worker' ? worker() : null;
  if (!handle) throw new Error(`FLOOR_ROLE: unknown role "${role}"`);
  const server = createServer((req, res) => {
    readJson(req)
      .then((body) => handle(req.url ?? '', body))
      .then(([status, body]) => answer(res, status, body), (err: Error) => answer(res, 500, { error: err.message }));
  });
  server.keepAliveTimeout = 5_000;
  server.listen(Number(process.env.FLOOR_PORT ?? 0), '127.0.0.1', () => {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    console.log(`FLOOR READY http://127.0.0.1:${address.port}`);
  });
  process.once('SIGTERM', () => process.exit(0));
}

main().catch((err: Error) => {
  console.error(err.stack ?? err.message);
  process.exit(1);
});
