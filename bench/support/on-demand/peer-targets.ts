import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { makeWorkerUtils } from 'graphile-worker';
import type { OwnedProcess } from '../../../test/cluster/support/processes';
import { JsonlTail } from '../jsonl-tail';
import { dbUrl, psqlOn } from '../peers/graphile';
import { packageVersion, startPeerWorker } from '../peers/peer-case';
import type { PeerServer } from '../peers/private-server';
import type { HandlerStart } from '../peers/start-figures';
import type { OnDemandTarget, Outcome, WorkItem } from './target';

/**
 * The peers of the on-demand benchmark, submitted to as their users' code does: BullMQ
 * (`Queue.add`, batched `Queue.addBulk`; a private Redis with AOF fsync every second) and
 * graphile-worker (`WorkerUtils.addJob`, batched `addJobs`; a private PostgreSQL 15, fsync on).
 * The load is spread over CLIENTS producer connections as Baton's is over its keep-alive HTTP
 * connections: BullMQ CLIENTS Queue objects (one Redis connection each), graphile-worker a pool
 * of CLIENTS connections. Two worker processes (bench/support/peers/worker-main.ts) at the
 * peers' defaults but for their concurrency record each handler start with the job's key.
 */

const CLIENTS = 16;
const WORKERS = 2;

/** How a peer takes work, and what its workers need to reach it. */
interface Producer {
  settings: Record<string, unknown>;
  workerEnv: Record<string, string>;
  submit(item: WorkItem): Promise<void>;
  submitBatch(items: readonly WorkItem[]): Promise<void>;
  close(): Promise<void>;
}

async function bullmqProducer(server: PeerServer): Promise<Producer> {
  const url = new URL(server.url);
  const connection = { host: url.hostname, port: Number(url.port) };
  execFileSync('redis-cli', ['-h', connection.host, '-p', String(connection.port), 'FLUSHALL'], { stdio: 'ignore' });
  const name = 'on-demand';
  const queues = Array.from({ length: CLIENTS }, () => new Queue(name, { connection }));
  await Promise.all(queues.map((q) => q.waitUntilReady()));
  let next = 0;
  const queue = () => queues[next++ % CLIENTS];
  return {
    settings: {
      bullmq: packageVersion('bullmq'),
      redis: execFileSync('redis-server', ['--version'], { encoding: 'utf8' }).match(/v=(\S+)/)?.[1] ?? '?',
      durability: 'appendonly yes, appendfsync everysec',
      submission: `Queue.add (batched: Queue.addBulk) over ${CLIENTS} Queue objects; completed jobs kept (removeOnComplete unset)`,
      worker: "defaults (lockDuration 30 s, stalledInterval 30 s, drainDelay 5 s) but concurrency",
    },
    workerEnv: { PEER_URL: server.url, PEER_QUEUE: name },
    async submit(item) {
      await queue().add(`task-${item.task}`, { k: item.key });
    },
    async submitBatch(items) {
      await queue().addBulk(items.map((item) => ({ name: `task-${item.task}`, data: { k: item.key } })));
    },
    async close() {
      await Promise.all(queues.map((q) => q.close()));
    },
  };
}

async function graphileProducer(server: PeerServer): Promise<Producer> {
  const db = 'on_demand';
  const psql = (database: string, sql: string) => psqlOn(server.url, database, sql);
  psql('postgres', `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  psql('postgres', `CREATE DATABASE ${db}`);
  const connectionString = dbUrl(server.url, db);
  const utils = await makeWorkerUtils({ connectionString, maxPoolSize: CLIENTS });
  await utils.migrate();
  return {
    settings: {
      'graphile-worker': packageVersion('graphile-worker'),
      postgresql: psql('postgres', 'SHOW server_version'),
      durability: `fsync ${psql('postgres', 'SHOW fsync')}, synchronous_commit ${psql('postgres', 'SHOW synchronous_commit')}`,
      submission: `WorkerUtils.addJob (batched: addJobs), a pool of ${CLIENTS} connections`,
      worker: 'defaults (pollInterval 2 s, LISTEN/NOTIFY for jobs due now) but concurrency and maxPoolSize = concurrency',
    },
    workerEnv: { PEER_URL: connectionString },
    async submit(item) {
      await utils.addJob('noop', { k: item.key, task: item.task });
    },
    async submitBatch(items) {
      await utils.addJobs(items.map((item) => ({ identifier: 'noop', payload: { k: item.key, task: item.task } })));
    },
    async close() {
      await utils.release();
      psql('postgres', `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
    },
  };
}

export async function startPeer(system: 'bullmq' | 'graphile-worker', server: PeerServer, concurrency: number, log: (s: string) => void): Promise<OnDemandTarget> {
  const producer = system === 'bullmq' ? await bullmqProducer(server) : await graphileProducer(server);
  const dir = mkdtempSync(join(tmpdir(), `baton-on-demand-${system}-`));
  const workers: OwnedProcess[] = [];
  const tails: Array<JsonlTail<HandlerStart>> = [];
  const close = async () => {
    await Promise.all(workers.map((w) => w.stop('SIGTERM', 5_000)));
    await producer.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 1; i <= WORKERS; i++) {
      const w = await startPeerWorker(system, `${system}-worker-${i}`, producer.workerEnv, concurrency, dir);
      tails.push(new JsonlTail<HandlerStart>(w.recordFile));
      workers.push(w.process);
    }
  } catch (err) {
    await close();
    throw err;
  }
  log(`  ${system}: ${WORKERS} workers × concurrency ${concurrency}, ${CLIENTS} producer connections`);
  const outcome = (p: Promise<void>): Promise<Outcome> => p.then(
    () => ({ ok: true }),
    (err: Error) => ({ ok: false, error: err.message }),
  );
  return {
    system,
    settings: { ...producer.settings, workers: WORKERS, concurrency },
    pids: { [system === 'bullmq' ? 'redis' : 'postgres']: server.pid, ...Object.fromEntries(workers.map((w, i) => [`worker-${i + 1}`, w.pid])) },
    submit: (item) => outcome(producer.submit(item)),
    submitBatch: async (items) => {
      const o = await outcome(producer.submitBatch(items));
      return items.map(() => o);
    },
    newStarts: async () => tails.flatMap((t) => t.next()),
    // An add in flight cannot be withdrawn: it stays unanswered until it settles.
    abandonPending: () => undefined,
    close,
  };
}
