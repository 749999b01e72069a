import { Cluster, sleep, waitFor } from '../../../test/cluster/support/cluster';
import { dispatchedCount } from '../../../test/cluster/support/burst';
import { dueTimes, openThrottles, seedRuns, waitAllEnded } from '../faults/common';
import { BURST_EXECUTOR_ENV } from '../../scenarios/burst';
import { afterDatabaseKill, killFailed, type HaKill } from './ha-kills';
import { ReplicaServers } from './replica-servers';
import { HA_ENGINE_ENV } from './ha-servers';

export interface ReplicaKillOptions {
  /** Noop runs in the burst during which the primary is killed. */
  burst: number;
  /** When the primary is killed: once this many runs are dispatched (a test: the burst surely in flight), or this long after the burst is due (the benchmark's fixed moment). */
  killAt: { dispatched: number } | { afterDueMs: number };
  /** The operator promotes the replica this long after the kill; null: nobody does (what the engines then do). */
  promoteAfterMs: number | null;
  /** Semi-synchronous replication (the default of scripts/mariadb-replica.sh) or asynchronous. */
  semiSync: boolean;
  /** Give up waiting for the runs once none ended for this long. */
  stallMs: number;
}

/**
 * Issue 25's second database topology: a primary and its replica (scripts/mariadb-replica.sh)
 * behind HAProxy (the writable one), two engines and two demo executors. A burst of noop runs;
 * SIGKILL of the primary mid-burst; the operator's promotion of the replica `promoteAfterMs`
 * later (`scripts/mariadb-replica.sh promote`, as an operator would run it); the engines follow
 * the writer. Lost / duplicated from the executors' records, pause = the longest gap between two
 * run ends around the kill. At the end the former primary is started again — rebuilt as the new
 * primary's replica — so the pair is whole for the next user.
 */
export async function runReplicaKill(options: ReplicaKillOptions, log: (line: string) => void): Promise<HaKill> {
  const servers = await ReplicaServers.start({ semiSync: options.semiSync }, log);
  let cluster: Cluster | undefined;
  let failed = true;
  try {
    const c = (cluster = await Cluster.open('replica', 'acme', { mysqlServerUrl: servers.databaseServerUrl }));
    await openThrottles(c);
    await c.startEngines(2, HA_ENGINE_ENV);
    await c.startExecutors(2, BURST_EXECUTOR_ENV);
    const semiSyncAtStart = await semiSyncCounters(c);
    const n = options.burst;
    const due = Math.ceil((Date.now() + 4_000 + n * 0.4) / 1000) * 1000;
    await seedRuns(c, { handler: 'noop', dueAt: dueTimes(n, due) });
    const { killAt } = options;
    if ('afterDueMs' in killAt) await sleep(due + killAt.afterDueMs - Date.now());
    else await waitFor(async () => (await dispatchedCount(c)) >= killAt.dispatched, { timeoutMs: 60_000, intervalMs: 20, what: `${killAt.dispatched} of the ${n} runs dispatched` });
    const semiSync = semiSyncDelta(semiSyncAtStart, await semiSyncCounters(c));
    const dispatched = await dispatchedCount(c);
    const killedAt = Date.now();
    const node = await servers.killPrimary();
    log(`  database: killed the primary (node ${node}) with ${dispatched} of ${n} runs dispatched, ${Date.now() - due} ms into the burst; semi-sync until then ${JSON.stringify(semiSync)}`);
    let promotedAt: number | null = null;
    let notReceived: number | null = null;
    if (options.promoteAfterMs !== null) {
      await sleep(killedAt + options.promoteAfterMs - Date.now());
      const t = Date.now();
      ({ notReceived } = await servers.promote());
      promotedAt = Date.now();
      log(`  database: the operator promoted the replica ${t - killedAt} ms after the kill (the script took ${promotedAt - t} ms); the primary had written ${notReceived ?? '?'} transaction(s) the replica never received`);
    }
    const waited = await waitAllEnded(c, n, { timeoutMs: 180_000, stallMs: options.stallMs, log });
    const fault = `primary SIGKILL mid-burst, ${promotedAt === null ? 'no promotion' : 'replica promoted'} (${options.semiSync ? 'semi-sync' : 'async'})`;
    if (promotedAt === null) {
      // The replica stays read-only, HAProxy has no server to send anything to: no run can end,
      // and nothing can be read back either.
      return { fault, count: n, lost: n - Math.max(0, waited.ended), duplicated: 0, pauseMs: Date.now() - killedAt, recoveryMs: NaN, figures: { killedNode: node, dispatchedAtKill: dispatched, allEnded: false } };
    }
    const newWriter = await servers.writer();
    const outcome = await afterDatabaseKill(c, killedAt, log);
    const restarted = Date.now();
    await servers.restartNode(node);
    const rebuildMs = Date.now() - restarted;
    log(`  database: node ${node} rebuilt as the new primary's replica in ${rebuildMs} ms`);
    const afterPromotion = outcome.ends.filter((e) => e > promotedAt);
    const kill: HaKill = {
      fault,
      count: n,
      ...outcome.kill,
      figures: {
        killedNode: node,
        newWriter,
        dispatchedAtKill: dispatched,
        promotedAfterMs: promotedAt - killedAt,
        firstEndAfterPromotionMs: afterPromotion.length ? Math.min(...afterPromotion) - promotedAt : null,
        semiSync,
        notReceived,
        ...outcome.figures,
        allEnded: waited.complete,
        rebuildMs,
      },
    };
    failed = killFailed(kill) || !waited.complete;
    return kill;
  } finally {
    await cluster?.close(failed).catch(() => undefined);
    await servers.release();
  }
}

/** The primary's semi-sync status and counters (since it started). */
async function semiSyncCounters(c: Cluster): Promise<Record<string, string>> {
  const rows: Array<{ Variable_name: string; Value: string }> = await c.ds.query(
    "SHOW GLOBAL STATUS WHERE Variable_name IN ('Rpl_semi_sync_master_status', 'Rpl_semi_sync_master_yes_tx', 'Rpl_semi_sync_master_no_tx', 'Rpl_semi_sync_master_no_times')",
  );
  return Object.fromEntries(rows.map((r) => [r.Variable_name.replace('Rpl_semi_sync_master_', ''), r.Value]));
}

/** During the burst: the commits that waited for the replica's acknowledgement (yes), those that did not (no), and how often the primary gave up waiting (offTimes). */
function semiSyncDelta(from: Record<string, string>, to: Record<string, string>): { status: string; yesTx: number; noTx: number; offTimes: number } {
  const d = (k: string) => Number(to[k] ?? 0) - Number(from[k] ?? 0);
  return { status: to.status ?? 'unknown', yesTx: d('yes_tx'), noTx: d('no_tx'), offTimes: d('no_times') };
}
