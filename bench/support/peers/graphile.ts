import { execFileSync } from 'node:child_process';
import { makeWorkerUtils } from 'graphile-worker';
import type { PeerServer } from './private-server';
import { packageVersion, type PeerQueue, type PeerSystem } from './peer-case';


/**
 * graphile-worker on the private PostgreSQL 15 (scripts/postgres.sh: fsync on): each case its own
 * database (created, migrated by WorkerUtils.migrate before the workers start, dropped after),
 * jobs added with WorkerUtils.addJobs (1,000 a call) with run_at = T, workers at graphile-worker's
 * defaults but for their concurrency and pool size. Completed jobs are deleted by graphile-worker,
 * so completed = added − rows left in graphile_worker.jobs.
 */
export function graphileSystem(server: PeerServer): PeerSystem {
  const psql = (db: string, sql: string) => psqlOn(server.url, db, sql);
  return {
    key: 'graphile-worker',
    storePid: server.pid,
    settings: {
      'graphile-worker': packageVersion('graphile-worker'),
      postgresql: psql('postgres', 'SHOW server_version'),
      durability: `fsync ${psql('postgres', 'SHOW fsync')}, synchronous_commit ${psql('postgres', 'SHOW synchronous_commit')}`,
      worker: 'defaults (pollInterval 2 s, LISTEN/NOTIFY for jobs due now, default logger) but concurrency and maxPoolSize = concurrency',
      jobs: 'WorkerUtils.addJobs, runAt = T',
    },
    async open(caseName): Promise<PeerQueue> {
      const db = `peers_${caseName}`.toLowerCase();
      psql('postgres', `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      psql('postgres', `CREATE DATABASE ${db}`);
      const connectionString = dbUrl(server.url, db);
      const utils = await makeWorkerUtils({ connectionString });
      await utils.migrate();
      let added = 0;
      return {
        workerEnv: { PEER_URL: connectionString },
        async add(keys, at) {
          for (let i = 0; i < keys.length; i += 1000) {
            const chunk = keys.slice(i, i + 1000);
            await utils.addJobs(chunk.map((k) => ({ identifier: 'noop', payload: { k }, runAt: new Date(at) })));
            added += chunk.length;
          }
        },
        async completed() {
          const left = await utils.withPgClient((c) => c.query<{ n: number }>('SELECT count(*)::int AS n FROM graphile_worker.jobs'));
          return added - left.rows[0].n;
        },
        // The public jobs view leaves the payload out; the table behind it has it.
        async inFlight() {
          const rows = await utils.withPgClient((c) => c.query<{ k: string }>("SELECT payload->>'k' AS k FROM graphile_worker._private_jobs WHERE locked_at IS NOT NULL"));
          return rows.rows.map((r) => r.k);
        },
        async close() {
          await utils.release();
          psql('postgres', `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
        },
      };
    },
  };
}

/** One statement through psql on database `db` of the server, its output trimmed. */
export function psqlOn(serverUrl: string, db: string, sql: string): string {
  return execFileSync('psql', [dbUrl(serverUrl, db), '-Atqc', sql], { encoding: 'utf8', env: { ...process.env, PGOPTIONS: '-c client_min_messages=warning' } }).trim();
}

/** The server's URL naming database `db`. */
export function dbUrl(serverUrl: string, db: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${db}`;
  return url.toString();
}
