import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, Clock } from '@baton/domain';
import { inTransaction, renewLeases } from '@baton/persistence';
import { ENGINE_CONFIG, EngineConfig } from '../config/engine-config';
import { PeriodicLoop } from '../common/periodic-loop';

/**
 * Keeps this node's leases alive: every leaseMs/3, one UPDATE extends the lease of every run it
 * holds (CLAIMED, or DISPATCHED while the send is in flight). Three renewals per lease period,
 * so two can fail (a slow database, a long GC pause) before a survivor may take the runs over.
 */
@Injectable()
export class LeaseRenewerService {
  private readonly logger = new Logger('Leases');
  private readonly loop: PeriodicLoop;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.loop = new PeriodicLoop('lease renewal', Math.max(1, Math.floor(config.leaseMs / 3)), async () => void (await this.renewOnce()), this.logger);
  }

  start(): void {
    // The claim has just set a full lease: the first renewal is due one period later.
    this.loop.start(Math.max(1, Math.floor(this.config.leaseMs / 3)));
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Renews now; returns the number of runs whose lease was extended. */
  renewOnce(): Promise<number> {
    // READ COMMITTED: the locking read takes no gap locks, so it never blocks the claim's inserts or updates.
    return inTransaction(this.dataSource, (em) => renewLeases(em, this.config.nodeId, this.clock.now() + this.config.leaseMs), { isolation: 'READ COMMITTED' });
  }
}
