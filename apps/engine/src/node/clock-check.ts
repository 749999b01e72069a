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
 * starts (the offset leaves its bound). startEngine measures once before the node starts, so its
 * first claims are on the database's time already.
 */
@Injectable()
export class ClockCheck implements NodeWorker {
  private readonly logger = new Logger('ClockCheck');
  private readonly loop: PeriodicLoop;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    private readonly watch: ClockWatch,
    private readonly skewAlarm: ClockSkewAlarm,
  ) {
    this.loop = new PeriodicLoop('clock', config.heartbeatMs, () => this.runOnce(), this.logger);
  }

  start(): void {
    this.loop.start(this.config.heartbeatMs);
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One measure: applied, recorded, and alarmed when the offset has just left its bound. */
  async runOnce(): Promise<void> {
    const change = await this.watch.check();
    const measure = this.watch.measure;
    if (!change || !measure) return;
    await inTransaction(this.dataSource, (em) => recordEngineClockOffset(em, this.config.nodeId, measure.offsetMs));
    if (change.from === 'IN_BOUND' && change.to !== 'IN_BOUND') await this.skewAlarm.raise(measure);
  }
}
