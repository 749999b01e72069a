import { appendFileSync } from 'node:fs';
import { Worker } from 'bullmq';
import { run } from 'graphile-worker';

/**
 * One worker process of a peer in the peers benchmark (bench/support/peers/peer-case.ts starts
 * two): a BullMQ Worker or a graphile-worker runner with the handler `noop`, which appends
 * `{"k":<job key>,"pid":…,"at":<Date.now() at handler start>}` to PEER_RECORD_FILE — the same
 * record, written the same way, as Baton's demo executor (apps/demo-executor/src/handlers.ts).
 * Environment: PEER_SYSTEM (bullmq | graphile-worker), PEER_URL, PEER_QUEUE (BullMQ's queue),
 * PEER_CONCURRENCY, PEER_RECORD_FILE. Prints `PEER WORKER READY` once it takes jobs.
 */

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is required`);
  return v;
};

const recordFile = env('PEER_RECORD_FILE');
const concurrency = Number(env('PEER_CONCURRENCY'));
const record = (k: string) => appendFileSync(recordFile, JSON.stringify({ k, pid: process.pid, at: Date.now() }) + '\n');

async function main(): Promise<void> {
  const system = env('PEER_SYSTEM');
  if (system === 'bullmq') {
    const url = new URL(env('PEER_URL'));
    const worker = new Worker(env('PEER_QUEUE'), async (job) => record((job.data as { k: string }).k), { connection: { host: url.hostname, port: Number(url.port) }, concurrency });
    await worker.waitUntilReady();
    process.once('SIGTERM', () => void worker.close().then(() => process.exit(0)));
  } else if (system === 'graphile-worker') {
    const runner = await run({
      connectionString: env('PEER_URL'),
      concurrency,
      // Its pool opened with its concurrency (default 10 connections, below 16 it warns).
      maxPoolSize: concurrency,
      noHandleSignals: true,
      taskList: { noop: async (payload) => record((payload as { k: string }).k) },
    });
    process.once('SIGTERM', () => void runner.stop().then(() => process.exit(0)));
  } else throw new Error(`PEER_SYSTEM: unknown system "${system}"`);
  console.log('PEER WORKER READY');
}

main().catch((err: Error) => {
  console.error(err.stack ?? err.message);
  process.exit(1);
});
