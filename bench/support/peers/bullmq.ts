import { execFileSync } from 'node:child_process';
import { Queue } from 'bullmq';
import type { PeerServer } from './private-server';
import { packageVersion, type PeerQueue, type PeerSystem } from './peer-case';

/**
 * BullMQ on the private Redis (scripts/redis.sh: AOF on, fsync every second): each case its own
 * queue, jobs added with addBulk (1,000 a call) as delayed jobs (`delay` = T − now), workers at
 * BullMQ's defaults but for their concurrency. The server is emptied first (FLUSHALL).
 */
export function bullmqSystem(server: PeerServer): PeerSystem {
  const url = new URL(server.url);
  const connection = { host: url.hostname, port: Number(url.port) };
  execFileSync('redis-cli', ['-h', connection.host, '-p', String(connection.port), 'FLUSHALL'], { stdio: 'ignore' });
  return {
    key: 'bullmq',
    storePid: server.pid,
    settings: {
      bullmq: packageVersion('bullmq'),
      redis: execFileSync('redis-server', ['--version'], { encoding: 'utf8' }).match(/v=(\S+)/)?.[1] ?? '?',
      durability: 'appendonly yes, appendfsync everysec',
      worker: 'defaults (lockDuration 30 s, stalledInterval 30 s, maxStalledCount 1, drainDelay 5 s) but concurrency',
      jobs: 'Queue.addBulk, opts.delay = T − now; completed jobs kept (removeOnComplete unset)',
    },
    async open(caseName): Promise<PeerQueue> {
      const name = `peers-${caseName}`;
      const queue = new Queue(name, { connection });
      return {
        workerEnv: { PEER_URL: server.url, PEER_QUEUE: name },
        async add(keys, at) {
          for (let i = 0; i < keys.length; i += 1000) {
            const delay = Math.max(0, at - Date.now());
            await queue.addBulk(keys.slice(i, i + 1000).map((k) => ({ name: 'noop', data: { k }, opts: { delay } })));
          }
        },
        completed: () => queue.getCompletedCount(),
        inFlight: async () => (await queue.getJobs(['active'])).map((j) => (j.data as { k: string }).k),
        close: () => queue.close(),
      };
    },
  };
}
