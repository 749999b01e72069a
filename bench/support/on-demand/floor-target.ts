import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../test/cluster/support/engine-http';
import { REGISTER_TS, startReadyProcess, type OwnedProcess } from '../../../test/cluster/support/processes';
import { JsonlTail } from '../jsonl-tail';
import { keepAlivePost } from '../keep-alive-post';
import type { PeerServer } from '../peers/private-server';
import type { HandlerStart } from '../peers/start-figures';
import { UNANSWERED, type OnDemandTarget, type Outcome, type WorkItem } from './target';

/**
 * The on-demand benchmark's floor: Baton's shape with nothing but the shape (floor-main.ts) — a
 * front that commits each run before its answer, a dispatcher that claims it with a durable
 * guarded UPDATE before sending it, two workers that start it and call back, the outcome written —
 * on the same MariaDB settings and the same load generator as Baton. What it costs a run is what
 * any system that keeps those guarantees over those hops pays on this machine: the part of
 * Baton's cost its features add is Baton's figure less the floor's.
 */

const CONNECTIONS = 16;
const WORKERS = 2;
const MAIN = join(__dirname, 'floor-main.ts');

export async function startFloor(mariadb: PeerServer, log: (s: string) => void): Promise<OnDemandTarget> {
  const sql = (statement: string) => execFileSync('mariadb', ['--no-defaults', '-h127.0.0.1', `-P${mariadb.port}`, '-ubaton', '-pbaton', '-Ne', statement], { encoding: 'utf8' }).trim();
  sql('DROP DATABASE IF EXISTS floor; CREATE DATABASE floor');
  // The primary key and the index a dispatcher's poll would need after a crash (its PENDING rows): no more.
  sql('CREATE TABLE floor.floor_runs (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, k VARCHAR(64) NOT NULL, task INT NOT NULL, state VARCHAR(16) NOT NULL, created_at BIGINT NOT NULL, dispatched_at BIGINT NULL, finished_at BIGINT NULL, KEY ix_floor_state (state, id)) ENGINE=InnoDB');
  const dbUrl = `${mariadb.url.replace(/\/$/, '')}/floor`;
  const dir = mkdtempSync(join(tmpdir(), 'baton-on-demand-floor-'));
  const processes: OwnedProcess[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS, timeout: 4_000 });
  const close = async () => {
    agent.destroy();
    await Promise.all(processes.map((p) => p.stop('SIGTERM', 5_000)));
    rmSync(dir, { recursive: true, force: true });
    sql('DROP DATABASE IF EXISTS floor');
  };
  const start = async (name: string, env: Record<string, string>) => {
    const { process: p, ready } = await startReadyProcess({ name, logFile: join(dir, `${name}.log`), env, args: ['-r', REGISTER_TS, MAIN], ready: /^FLOOR READY (\S+)\r?$/m, what: 'floor process' });
    processes.push(p);
    return { pid: p.pid, url: ready[1] };
  };
  const tails: Array<JsonlTail<HandlerStart>> = [];
  let front: { pid: number; url: string };
  let dispatcher: { pid: number; url: string };
  const workers: Array<{ pid: number; url: string }> = [];
  try {
    const dispatcherPort = await freePort();
    const dispatcherUrl = `http://127.0.0.1:${dispatcherPort}`;
    for (let i = 1; i <= WORKERS; i++) {
      const recordFile = join(dir, `worker-${i}.records.jsonl`);
      workers.push(await start(`worker-${i}`, { FLOOR_ROLE: 'worker', FLOOR_DISPATCHER_URL: dispatcherUrl, FLOOR_RECORD_FILE: recordFile }));
      tails.push(new JsonlTail<HandlerStart>(recordFile));
    }
    dispatcher = await start('dispatcher', { FLOOR_ROLE: 'dispatcher', FLOOR_PORT: String(dispatcherPort), FLOOR_DB_URL: dbUrl, FLOOR_WORKER_URLS: workers.map((w) => w.url).join(',') });
    front = await start('front', { FLOOR_ROLE: 'front', FLOOR_DB_URL: dbUrl, FLOOR_DISPATCHER_URL: dispatcher.url });
  } catch (err) {
    await close();
    throw err;
  }
  log(`  floor: front ${front.url}, dispatcher ${dispatcher.url}, ${WORKERS} workers`);
  const send = keepAlivePost(agent, new URL(front.url), {});
  const pending = new Set<{ req: ClientRequest; settle: (o: Outcome) => void }>();
  const sent = (path: string, body: unknown): Promise<Outcome> =>
    new Promise<Outcome>((resolve) => {
      const { req, answer } = send(path, body);
      const entry = { req, settle: resolve };
      pending.add(entry);
      const done = (o: Outcome) => {
        if (pending.delete(entry)) resolve(o);
      };
      answer.then(
        ({ status, body: text }) => done(status === 201 ? { ok: true } : { ok: false, error: `HTTP ${status} ${text.slice(0, 120)}` }),
        (err: Error) => done({ ok: false, error: err.message }),
      );
    });
  return {
    system: 'floor',
    settings: {
      what: "Baton's shape and nothing else (bench/support/on-demand/floor-main.ts): a front process that INSERTs the runs of a turn together, autocommitted, before its answers; a dispatcher that claims them with one guarded UPDATE before sending them; 2 workers that answer, record the start and call back; the outcome UPDATE. node:http, mysql2, no framework",
      mariadb: sql("SELECT CONCAT(VERSION(), ', innodb_flush_log_at_trx_commit ', @@innodb_flush_log_at_trx_commit, ', log_bin ', @@log_bin)"),
      submission: `POST /runs {k, task} (batched: POST /runs/batch {items}), ${CONNECTIONS} keep-alive HTTP connections`,
    },
    pids: { mariadb: mariadb.pid, front: front.pid, dispatcher: dispatcher.pid, ...Object.fromEntries(workers.map((w, i) => [`worker-${i + 1}`, w.pid])) },
    submit: (item: WorkItem) => sent('/runs', { k: item.key, task: item.task }),
    submitBatch: async (items) => {
      const o = await sent('/runs/batch', { items: items.map((item) => ({ k: item.key, task: item.task })) });
      return items.map(() => o);
    },
    newStarts: async () => tails.flatMap((t) => t.next()),
    abandonPending() {
      for (const entry of pending) {
        entry.req.destroy();
        entry.settle({ ok: false, error: UNANSWERED });
      }
      pending.clear();
    },
    close,
  };
}
