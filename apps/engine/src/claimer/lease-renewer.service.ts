import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, Clock, leaseNeedsRenewal, leaseRenewalPeriod, renewedLeaseUntil } from '@baton/domain';
import { EXTEND_LEASES_BATCH, extendLeases, findLeasedRuns, inTransaction, type LeasedRun } from '@baton/persistence';
import { ENGINE_CONFIG, EngineConfig } from '../config/engine-config';
import { EngineMetrics } from '../metrics/engine-metrics';
import { PeriodicLoop } from '../common/periodic-loop';
import { RunClaims } from '../runs/run-claims';
import { DUE_QUEUE, type DueQueuePort } from './due-queue-port';

/**
 * Keeps this node's leases alive: every leaseMs/3, it reads the runs it holds (CLAIMED, or
 * DISPATCHED while the send is in flight) and extends the lease of those whose lease would end
 * within a lease, a statement's worth at a time — not those claimed since the last renewal, whose
 * claim gave them more (libs/domain run/lease.ts).
 * Two renewals in a row can fail (a slow database, a long GC pause) before a survivor may take
 * the runs over.
 *
 * It also gives back strays: runs whose row says this node holds them while the node has them
 * nowhere in memory (DueQueuePort.holds), at two renewals in a row. A claim or a DISPATCHED mark
 * that committed while its answer was lost — a database writer killed mid-COMMIT, whose
 * transaction the surviving nodes had already certified — is taken by the node as not done; its
 * runs would never be sent, and these very renewals would keep every other engine off them
 * (16 of 600 runs in test/ha once). They go back as a dead node's do at a takeover
 * (RunClaims.giveBackStrays). Two sightings, because a claim's rows are visible from its COMMIT,
 * a moment before the claimer hands them over; a run given back that the node does still hold
 * costs a wasted claim, never a second send — every later write of the node is guarded on its
 * owner.
 */
@Injectable()
export class LeaseRenewerService {
  private readonly logger = new Logger('Leases');
  private readonly loop: PeriodicLoop;
  /** Runs held in the database but not in memory at the last renewal. */
  private suspects = new Set<number>();

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly metrics: EngineMetrics,
    @Inject(DUE_QUEUE) private readonly dueQueue: DueQueuePort,
    private readonly claims: RunClaims,
  ) {
    this.loop = new PeriodicLoop('lease renewal', leaseRenewalPeriod(config.leaseMs), async () => void (await this.renewOnce()), this.logger);
  }

  start(): void {
    // The claim has just set a full lease: the first renewal is due one period later.
    this.loop.start(leaseRenewalPeriod(this.config.leaseMs));
  }

  stop(): Promise<void> {
    this.suspects.clear();
    return this.loop.stop();
  }

  /** Renews now (the leases due for it), then gives back the strays; returns the number of runs it holds in the database. */
  async renewOnce(): Promise<number> {
    const now = this.clock.now();
    const leased = await findLeasedRuns(this.dataSource.manager, this.config.nodeId);
    const due = leased.filter((r) => leaseNeedsRenewal(r.leaseUntil, now, this.config.leaseMs)).map((r) => r.id);
    const until = renewedLeaseUntil(now, this.config.leaseMs);
    // A transaction a statement's worth: the rows due are locked only while their own UPDATE goes
    // (findLeasedRuns says why). READ COMMITTED: the locking read takes no gap locks, so it never
    // blocks the claim's inserts or updates.
    for (let i = 0; i < due.length; i += EXTEND_LEASES_BATCH) {
      const ids = due.slice(i, i + EXTEND_LEASES_BATCH);
      await inTransaction(this.dataSource, (em) => extendLeases(em, this.config.nodeId, ids, until), { isolation: 'READ COMMITTED' });
    }
    await this.giveBackStrays(leased);
    return leased.length;
  }

  private async giveBackStrays(leased: readonly LeasedRun[]): Promise<void> {
    const unheld = leased.filter((r) => !this.dueQueue.holds(r.id));
    const strays = unheld.filter((r) => this.suspects.has(r.id));
    this.suspects = new Set(unheld.filter((r) => !this.suspects.has(r.id)).map((r) => r.id));
    if (strays.length === 0) return;
    const now = this.clock.now();
    const released = await inTransaction(this.dataSource, (em) => this.claims.giveBackStrays(em, strays, now), { isolation: 'READ COMMITTED' });
    this.metrics.runsReleased.inc({ reason: 'STRAY', outcome: 'PENDING' }, released);
    const named = strays.slice(0, 20).map((r) => `${r.id} (${r.state})`).join(', ') + (strays.length > 20 ? ', …' : '');
    this.logger.warn(`gave back ${released} of ${strays.length} run(s) held by this node in the database but not in memory (a claim or mark whose answer was lost?): ${named}`);
  }
}
