import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, Clock } from '@baton/domain';
import { findLeaseHolders, findUpEngineNodes, inTransaction, insertEngineDownAlarms, markEngineNodeDown } from '@baton/persistence';
import type { EngineNodeRow } from '@baton/persistence';
import { ENGINE_CONFIG, EngineConfig } from '../../config/engine-config';
import { EngineMetrics } from '../../metrics/engine-metrics';
import { GroupPeers } from '../../common/group-peers';
import { LivenessLock } from '../liveness-lock';
import { releaseHeldRuns, ReleaseSummary } from '../../runs/release-held-runs';

/**
 * How a node was found dead: SILENT — no heartbeat for engineDeadAfterMs; SESSION_ENDED — its
 * liveness lock was freed (its database session ended: the process died, or lost the database);
 * PROCESS_GONE — same host, and its pid no longer exists.
 */
export type DeathCause = 'SILENT' | 'SESSION_ENDED' | 'PROCESS_GONE';

/** One dead engine taken over by this node. */
export interface Takeover {
  node: string;
  cause: DeathCause;
  lastHeartbeatAt: number;
  /** Its runs were released this long after its last heartbeat (ms). */
  sinceLastHeartbeatMs: number;
  /** The takeover transaction took this long (ms). */
  durationMs: number;
  released: ReleaseSummary;
  alarms: number;
}

export interface SweepResult {
  owner: string;
  released: ReleaseSummary;
}

const DEATH_EVIDENCE: Record<DeathCause, string> = {
  SILENT: 'its heartbeats stopped',
  SESSION_ENDED: 'its database session ended',
  PROCESS_GONE: 'its process is gone',
};

/**
 * What survivors do about engines that stopped: run on every heartbeat of every node, and
 * runByLocks every livenessPollMs (MySQL/MariaDB).
 *
 * 1. Dead nodes — UP in engine_nodes but silent for more than engineDeadAfterMs (Quartz's
 *    scheduler_state check-in). Every survivor may see one; the guarded UP → DOWN update
 *    elects exactly one winner, which in the same transaction releases every run the dead node
 *    held (lease or not: the node is declared dead, and its in-memory queue can no longer move
 *    them — its guarded dispatch would fail) and writes one ENGINE_DOWN alarm (CRITICAL) per
 *    tenant that had runs on it. Tenants with nothing on the dead node are not affected and
 *    get no alarm; a node that held nothing is logged, not alarmed — alarms are per tenant
 *    and there is no tenant to tell (the operator sees the node DOWN on the engine page).
 * 2. Expired leases of any node (a node marked DOWN with DISPATCHED runs left, a node whose
 *    renewals fail): released the same way, guarded by the lease bound.
 * Released CLAIMED runs follow their task's misfire policy (planRelease); DISPATCHED ones go
 * back to PENDING keeping executor_id, so the re-send reaches the same executor, which
 * de-duplicates by (run id, attempt).
 */
@Injectable()
export class TakeoverService {
  private readonly logger = new Logger('Takeover');

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly metrics: EngineMetrics,
    private readonly lock: LivenessLock,
    private readonly peers: GroupPeers,
  ) {}

  /** Nodes whose liveness lock this node has seen held, with its own lock session then. */
  private readonly seenLocked = new Map<string, number>();

  /** One pass: take over dead nodes, then sweep expired leases. */
  async runOnce(): Promise<{ takeovers: Takeover[]; sweeps: SweepResult[] }> {
    const now = this.clock.now();
    const silentSince = now - this.config.engineDeadAfterMs;
    const dead = (await findUpEngineNodes(this.dataSource.manager, { heartbeatBefore: silentSince })).filter((n) => n.id !== this.config.nodeId);
    const takeovers: Takeover[] = [];
    for (const node of dead) {
      const done = await this.takeOver(node);
      if (done) takeovers.push(done);
    }
    return { takeovers, sweeps: await this.sweepExpiredLeases() };
  }

  /**
   * Takes over the nodes whose liveness lock was held and is free now: their database session
   * ended, which for a killed process is at once (its kernel closes the TCP connection). A lock
   * counts as seen held only if seen during this node's current lock session: after a database
   * restart every session is new, and the others need a moment to take their locks again. A node
   * whose lock was never seen held (an engine of an older version) is left to the heartbeat.
   * The locks are read on this node's own lock session (LivenessLock.freeAmong): named locks are
   * local to a Galera node, and a lock looks free on every node but the one it is held on.
   * No-op where locks are not supported or off.
   */
  async runByLocks(): Promise<Takeover[]> {
    const mine = this.lock.session;
    if (mine === null) return [];
    // The list from GroupPeers' snapshot (re-read every 0.5 s for the claimer anyway), not a read
    // of engine_nodes every poll: an engine at rest sends a good share of its statements here.
    const others = await this.peers.all();
    const freeNow = await this.lock.freeAmong(others.map((n) => n.id));
    if (freeNow === null || this.lock.session !== mine) return [];
    const free = new Set(freeNow);
    const takeovers: Takeover[] = [];
    for (const node of others) {
      if (!free.has(node.id)) {
        this.seenLocked.set(node.id, mine);
        continue;
      }
      if (this.seenLocked.get(node.id) !== mine) continue;
      this.seenLocked.delete(node.id);
      const done = await this.takeOver(node, { cause: 'SESSION_ENDED' });
      if (done) takeovers.push(done);
    }
    return takeovers;
  }

  /**
   * Declares `node` DOWN and releases its runs, if this node wins the race. A cause other than
   * SILENT skips the staleness guard: the node is known dead otherwise.
   */
  async takeOver(node: EngineNodeRow, options: { cause?: DeathCause } = {}): Promise<Takeover | null> {
    const cause = options.cause ?? 'SILENT';
    const started = performance.now();
    const result = await inTransaction(
      this.dataSource,
      async (em) => {
        const now = this.clock.now();
        const heartbeatBefore = cause === 'SILENT' ? now - this.config.engineDeadAfterMs : undefined;
        if (!(await markEngineNodeDown(em, node.id, { heartbeatBefore }))) return null;
        const released = await releaseHeldRuns(em, { owner: node.id, now });
        const silentMs = now - node.heartbeatAt;
        // What the tenant sees (console, topic, webhooks): what became of its runs. Which node it was,
        // on which host, and who took over are the operator's (the log line below, the engine nodes
        // page): a node id names its host and pid by default, and tenants learn none of the cluster's.
        const alarms = [...released.tenants].map(([tenantId, runs]) => ({
          tenantId,
          message: `An engine of your engine group stopped (${DEATH_EVIDENCE[cause]}, last heartbeat ${silentMs} ms ago): ${runs} of your run(s) it held were taken over by another engine.`,
          data: { cause, lastHeartbeatAt: node.heartbeatAt, runs },
        }));
        await insertEngineDownAlarms(em, alarms, now);
        return { released, alarms: alarms.length, now };
      },
      { isolation: 'READ COMMITTED' },
    );
    if (!result) return null;
    const durationMs = Math.round(performance.now() - started);
    const sinceLastHeartbeatMs = result.now + durationMs - node.heartbeatAt;
    const r = result.released;
    this.metrics.takeoverDelay.observe(sinceLastHeartbeatMs / 1000);
    this.count('TAKEOVER', r);
    this.logger.warn(
      `engine node ${node.id} (host ${node.host}, pid ${node.pid}) declared DOWN, ${DEATH_EVIDENCE[cause]} (last heartbeat ${new Date(node.heartbeatAt).toISOString()}): ` +
        `${r.claimed} claimed + ${r.dispatched} dispatched run(s) back to PENDING, ${r.skipped} skipped as misfired, ` +
        `${result.alarms} ENGINE_DOWN alarm(s); takeover took ${durationMs} ms, runs claimable ${sinceLastHeartbeatMs} ms after its last heartbeat`,
    );
    return { node: node.id, cause, lastHeartbeatAt: node.heartbeatAt, sinceLastHeartbeatMs, durationMs, released: r, alarms: result.alarms };
  }

  /**
   * Releases runs whose lease expired, whoever holds them (this node excepted: its own renewal
   * is the cure there). findLeaseHolders is one loose index scan; only owners with an expired
   * lease are read run by run.
   */
  async sweepExpiredLeases(): Promise<SweepResult[]> {
    const now = this.clock.now();
    const holders = await findLeaseHolders(this.dataSource.manager);
    const owners = [...new Set(holders.filter((h) => h.owner !== this.config.nodeId && h.earliestLeaseUntil < now).map((h) => h.owner))];
    const results: SweepResult[] = [];
    for (const owner of owners) {
      const released = await inTransaction(this.dataSource, (em) => releaseHeldRuns(em, { owner, now: this.clock.now(), leaseBefore: now }), {
        isolation: 'READ COMMITTED',
      });
      const total = released.claimed + released.dispatched + released.skipped;
      if (total === 0) continue;
      this.count('EXPIRED', released);
      this.logger.warn(
        `expired leases of ${owner}: ${released.claimed} claimed + ${released.dispatched} dispatched run(s) back to PENDING, ${released.skipped} skipped as misfired`,
      );
      results.push({ owner, released });
    }
    return results;
  }

  /** Gives back the runs this very node holds from a previous life (same node id, process restarted). */
  async recoverOwnLeftovers(): Promise<ReleaseSummary> {
    const released = await inTransaction(this.dataSource, (em) => releaseHeldRuns(em, { owner: this.config.nodeId, now: this.clock.now() }), {
      isolation: 'READ COMMITTED',
    });
    if (released.claimed + released.dispatched + released.skipped > 0) {
      this.count('RESTART', released);
      this.logger.warn(
        `node id ${this.config.nodeId} restarted: ${released.claimed} claimed + ${released.dispatched} dispatched run(s) of its previous life back to PENDING, ${released.skipped} skipped`,
      );
    }
    return released;
  }

  private count(reason: string, r: ReleaseSummary): void {
    this.metrics.runsReleased.inc({ reason, outcome: 'PENDING' }, r.claimed + r.dispatched);
    this.metrics.runsReleased.inc({ reason, outcome: 'SKIPPED' }, r.skipped);
  }
}
