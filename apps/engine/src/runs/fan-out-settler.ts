import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '@baton/domain';
import { findSettleableFanOuts } from '@baton/persistence';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { followUpTransaction } from '../follow-ups/follow-ups';
import { FanOutNudges } from './fan-out-nudges';
import { RunOutcomes } from './run-outcomes';

/** How long nudges (each sent after its shard's commit) gather, so shards ending together cost one look. */
const GATHER_MS = 25;
/** Fan-out runs settled per sweep; the rest wait for the next watchdog tick. */
const SWEEP_BATCH = 50;

/**
 * Ends the fan-out runs whose last shard's own transaction could not: the two last shards that
 * ended in the same instant and each saw the other still going (RunOutcomes nudges them here
 * after each commit; looked at GATHER_MS later), and — by the watchdog's sweep — any run
 * whose shards have all ended while it still runs (an engine that died between the two). Each
 * look is RunOutcomes.settleFanOut in a transaction of its own: it ends the run at most once.
 */
@Injectable()
export class FanOutSettler implements OnModuleDestroy {
  private readonly logger = new Logger('FanOutSettler');
  private pending = new Set<number>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly outcomes: RunOutcomes,
    nudges: FanOutNudges,
  ) {
    nudges.onNudge((runId) => this.soon(runId));
  }

  /** Looks at the fan-out runs of this node's groups whose shards have all ended (the watchdog's tick). */
  async sweep(): Promise<number> {
    const ids = await findSettleableFanOuts(this.dataSource.manager, { groups: this.config.groups, limit: SWEEP_BATCH });
    for (const id of ids) await this.settle(id);
    return ids.length;
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private soon(runId: number): void {
    this.pending.add(runId);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      const ids = [...this.pending];
      this.pending = new Set();
      this.running = this.running.then(async () => {
        for (const id of ids) await this.settle(id);
      });
    }, GATHER_MS);
    this.timer.unref();
  }

  private async settle(runId: number): Promise<void> {
    try {
      await followUpTransaction(this.dataSource, (em) => this.outcomes.settleFanOut(em, runId, this.clock.now(), { nudge: false }));
    } catch (err) {
      // The watchdog's sweep looks again on its next tick.
      this.logger.warn(`fan-out run not settled yet: ${(err as Error).message}`, { runId });
    }
  }
}
