import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleDestroy, Optional } from '@nestjs/common';
import { flushTracing } from '@baton/tracing';
import { DataSource } from 'typeorm';
import { CLOCK, Clock } from '@baton/domain';
import { inTransaction } from '@baton/persistence';
import { ENGINE_CONFIG, EngineConfig } from '../config/engine-config';
import { PeriodicLoop } from '../common/periodic-loop';
import { ClaimerService } from '../claimer/claimer.service';
import { LeaseRenewerService } from '../claimer/lease-renewer.service';
import { DUE_QUEUE, DueQueuePort } from '../claimer/due-queue-port';
import { PlannerService } from '../planner/planner.service';
import { EngineMetrics } from '../metrics/engine-metrics';
import { EngineNodeService } from './engine-node.service';
import { TakeoverService } from './takeover/takeover.service';
import { releaseHeldRuns } from '../runs/release-held-runs';
import { RunClaims } from '../runs/run-claims';
import { NODE_WORKERS, NodeWorker } from '../common/node-workers';
import { WriterFollower } from './writer-follower';

export type EngineState = 'NEW' | 'STARTING' | 'RUNNING' | 'STOPPING' | 'STOPPED';

/**
 * Starts and stops the claim side of one engine node, in order.
 *
 * start(url): create the served engine groups that are missing, register the node (refusing a
 * second engine on SQLite), give back runs a previous life of this node id still holds, take
 * over provably dead nodes (embedded restart),
 * then the loops: heartbeat, takeover of silent nodes (not while this node's own heartbeat has
 * lapsed: NodeLiveness), liveness locks (MySQL/MariaDB: takeover
 * of crashed nodes), lease renewal, planner, claimer, and the dispatch side's NODE_WORKERS (the
 * watchdog).
 *
 * stop() — on application shutdown, before the data source closes: stop claiming and planning
 * (onModuleDestroy), then (beforeApplicationShutdown) take the runs still waiting in memory
 * back from the DueQueue (drain), release them and any other CLAIMED run of this node
 * (guarded CLAIMED → PENDING), and mark the node DOWN so nobody waits for its heartbeat to age.
 * DISPATCHED runs (a send in flight when the dispatch side stopped) are left to their lease:
 * when it expires a survivor re-sends them to the same executor, which de-duplicates.
 *
 * While running, claiming and planning pause whenever the liveness lock is lost or the pool
 * reaches another server than the lock (a database failover: WriterFollower), and resume once
 * the lock is held again where the pool writes.
 */
@Injectable()
export class EngineLifecycleService implements OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger('Engine');
  private readonly heartbeatLoop: PeriodicLoop;
  private readonly takeoverLoop: PeriodicLoop;
  private readonly livenessLoop: PeriodicLoop;
  private readonly writer: WriterFollower;
  private stateValue: EngineState = 'NEW';
  private urlValue: string | null = null;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly metrics: EngineMetrics,
    private readonly node: EngineNodeService,
    private readonly takeover: TakeoverService,
    private readonly planner: PlannerService,
    private readonly claimer: ClaimerService,
    private readonly leases: LeaseRenewerService,
    @Inject(DUE_QUEUE) private readonly dueQueue: DueQueuePort,
    private readonly claims: RunClaims,
    @Optional() @Inject(NODE_WORKERS) private readonly workers: NodeWorker[] = [],
  ) {
    this.heartbeatLoop = new PeriodicLoop(
      'heartbeat',
      config.heartbeatMs,
      async () => {
        await this.node.heartbeat();
        await this.writer.check();
      },
      this.logger,
    );
    // Its own loop, at the heartbeat's pace: a takeover that waits (on row locks a frozen engine
    // still held) must not hold this node's heartbeat too — measured, both survivors of a
    // SIGSTOP were declared DOWN by the engine they were taking over when it woke up.
    this.takeoverLoop = new PeriodicLoop(
      'takeover',
      config.heartbeatMs,
      async () => {
        if (!this.node.lapsed) await this.takeover.runOnce();
      },
      this.logger,
    );
    this.livenessLoop = new PeriodicLoop('liveness', Math.max(1, config.livenessPollMs), async () => {
      if (this.writer.paused) await this.writer.check();
      await this.takeover.runByLocks();
    }, this.logger);
    this.writer = new WriterFollower(dataSource, node.lock, [claimer, planner], () => this.stateValue === 'RUNNING', this.logger);
  }

  get state(): EngineState {
    return this.stateValue;
  }

  /** The callback URL the node registered (null before start). */
  get url(): string | null {
    return this.urlValue;
  }

  async start(url: string): Promise<void> {
    if (this.stateValue !== 'NEW' && this.stateValue !== 'STOPPED') throw new Error(`engine is ${this.stateValue}, cannot start`);
    this.stateValue = 'STARTING';
    try {
      const provablyDead = await this.node.register(url);
      this.urlValue = url;
      await this.takeover.recoverOwnLeftovers();
      for (const node of provablyDead) await this.takeover.takeOver(node, { cause: 'PROCESS_GONE' });
      this.heartbeatLoop.start(this.config.heartbeatMs);
      this.takeoverLoop.start(this.config.heartbeatMs);
      if (this.node.livenessLocked) {
        this.livenessLoop.start(this.config.livenessPollMs);
        this.writer.start();
      }
      this.leases.start();
      this.planner.start();
      this.claimer.start();
      for (const worker of this.workers) worker.start();
      // A first takeover pass at once: a restarted embedded engine picks up stale nodes' runs now.
      await this.takeover.runOnce();
    } catch (err) {
      await this.stopLoops();
      // Registered but not working: say so now rather than let survivors wait for the heartbeat to age.
      await this.node.markDown().catch(() => undefined);
      this.stateValue = 'STOPPED';
      throw err;
    }
    this.stateValue = 'RUNNING';
    const mode = this.node.embedded ? 'embedded (SQLite, one engine)' : 'cluster';
    this.logger.log(`engine node ${this.config.nodeId} UP at ${url}: groups ${this.config.groups.join(', ')}, ${mode}`);
  }

  /** Stops claiming and planning; idempotent. */
  async onModuleDestroy(): Promise<void> {
    if (this.stateValue !== 'RUNNING' && this.stateValue !== 'STARTING') return;
    this.stateValue = 'STOPPING';
    await this.stopLoops();
  }

  /** Gives back what the node holds and marks it DOWN (the data source is still open here). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
    // The last runs' spans leave before the process ends (the exporter would send them in up to 5 s).
    await flushTracing();
  }

  /** The whole graceful stop (also callable directly, e.g. by a host that stops the engine alone). */
  async stop(): Promise<void> {
    if (this.stateValue === 'NEW' || this.stateValue === 'STOPPED') return;
    this.stateValue = 'STOPPING';
    await this.stopLoops();
    if (!this.dataSource.isInitialized) {
      this.stateValue = 'STOPPED';
      return;
    }
    const owner = this.config.nodeId;
    const drained = this.dueQueue.drain();
    const now = this.clock.now();
    const released = await inTransaction(
      this.dataSource,
      async (em) => {
        const byId = await this.claims.giveBack(em, drained.filter((r) => r.markedAt === undefined).map((r) => r.runId), now);
        // Runs written already sent (DirectStarts) that had not left: DISPATCHED under this node, their executor never got them.
        const unsent = await this.claims.giveBackUnsent(em, drained.filter((r) => r.markedAt !== undefined).map((r) => r.runId), now);
        // Anything else still CLAIMED by this node (claimed but never queued, handed back late).
        const rest = await releaseHeldRuns(em, { owner, now, states: ['CLAIMED'] });
        return { pending: byId + unsent + rest.claimed, skipped: rest.skipped };
      },
      { isolation: 'READ COMMITTED' },
    );
    this.metrics.runsReleased.inc({ reason: 'SHUTDOWN', outcome: 'PENDING' }, released.pending);
    this.metrics.runsReleased.inc({ reason: 'SHUTDOWN', outcome: 'SKIPPED' }, released.skipped);
    await this.node.markDown();
    this.stateValue = 'STOPPED';
    this.logger.log(`engine node ${owner} DOWN: ${drained.length} run(s) drained from memory, ${released.pending} released to PENDING, ${released.skipped} skipped as misfired`);
  }

  private async stopLoops(): Promise<void> {
    this.writer.stop();
    // Claimer first: nothing new enters the DueQueue while the rest stops.
    await this.claimer.stop();
    for (const worker of this.workers) await worker.stop();
    await this.planner.stop();
    await this.leases.stop();
    await this.heartbeatLoop.stop();
    await this.takeoverLoop.stop();
    await this.livenessLoop.stop();
  }
}
