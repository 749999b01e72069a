import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { inTransaction, recordEngineClockOffset } from '@baton/persistence';
import { ClockSkewAlarm } from '../alarms/clock-skew-alarm';
import { ClockWatch } from '../common/clock-watch';
import { PeriodicLoop } from '../common/periodic-loop';
import type { NodeWorker } from '../common/node-workers';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';

/**
 * The clock measured at the heartbeat's pace (BATON_HEARTBEAT_MS): ClockWatch's measure applied,
 * recorded on the node's row for the operator's page, and a CLOCK_SKEW alarm when an episode
 * starts (the offset leaves its bound) — and again when it goes on another way: from SKEWED to
 * STOPPED or back, or from ahead to behind (ClockSkewAlarm gives the open alarm its message); the
 * first measure when the node starts. startEngine measures once before that (ClockWatch), so the
 * node's first claims are on the database's time.
 */
@Injectable()
export class ClockCheck implements NodeWorker {
  private readonly logger = new Logger('ClockCheck');
  private readonly loop: PeriodicLoop;
  /** What CLOCK_SKEW was last raised for in the episode going on — its state and which way the clock is off; null: in bound since. */
  private alarmed: string | null = null;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    private readonly watch: ClockWatch,
    private readonly skewAlarm: ClockSkewAlarm,
  ) {
    this.loop = new PeriodicLoop('clock', config.heartbeatMs, () => this.runOnce(), this.logger);
  }

  /** The first measure at once: an engine started off the database's clock says so now. */
  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One measure: applied, recorded, and CLOCK_SKEW raised once an episode (the offset out of its bound) and way it is off. */
  async runOnce(): Promise<void> {
    await this.watch.check();
    const measure = this.watch.measure;
    if (!measure) return;
    await inTransaction(this.dataSource, (em) => recordEngineClockOffset(em, this.config.nodeId, measure.offsetMs));
    if (measure.state === 'IN_BOUND') {
      this.alarmed = null;
      return;
    }
    const way = `${measure.state} ${measure.offsetMs < 0 ? 'ahead' : 'behind'}`;
    if (way === this.alarmed) return;
    await this.skewAlarm.raise(measure);
    this.alarmed = way;
  }
}
