import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, clockSkewState, offsetOf, OffsetClock, type Clock, type ClockSkewState } from '@baton/domain';
import { readDatabaseTime } from '@baton/persistence';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { EngineMetrics } from '../metrics/engine-metrics';

/** The last measurement, as /health shows it. */
export interface ClockMeasure {
  /** Database − this machine's clock, ms: the correction the engine's clock applies. */
  offsetMs: number;
  /** Half the round trip of the measuring SELECT: the measure's error is within it. */
  uncertaintyMs: number;
  /** When it was measured (corrected time). */
  at: number;
  state: ClockSkewState;
}

/**
 * Clocks measured, not trusted (issue 39 item 2). At each heartbeat the engine reads the
 * database's time (one SELECT) and takes the offset from its own clock, corrected by half the
 * round trip; its clock (an OffsetClock, the engine's CLOCK in production) then reads the machine's
 * time plus that offset, so every engine of a cluster schedules on the database's time and a
 * machine whose clock is 5 s off neither starts runs 5 s early nor late. Beyond
 * BATON_CLOCK_SKEW_ALARM_MS the offset is an alarm (CLOCK_SKEW: the machine needs NTP), beyond
 * BATON_CLOCK_SKEW_STOP_MS the engine claims nothing until a measure is in bound again: a clock
 * that far off may jump again between two heartbeats.
 *
 * With another clock injected (tests' ManualClock), nothing is corrected or measured: that clock is the time.
 */
@Injectable()
export class ClockWatch {
  private readonly logger = new Logger('ClockWatch');
  private last: ClockMeasure | null = null;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly metrics: EngineMetrics,
  ) {}

  /** The last measure, or null (not measured yet, or not an OffsetClock). */
  get measure(): ClockMeasure | null {
    return this.last;
  }

  /** Whether the engine may claim runs: not while its clock is beyond the stop bound. */
  get mayClaim(): boolean {
    return this.last?.state !== 'STOPPED';
  }

  /** Measures the offset and applies it (a change of state is logged); returns the state, or null when the clock is not an OffsetClock. */
  async check(): Promise<ClockSkewState | null> {
    if (!(this.clock instanceof OffsetClock)) return null;
    const sentAt = this.clock.raw();
    const referenceAt = await readDatabaseTime(this.dataSource.manager);
    const { offsetMs, uncertaintyMs } = offsetOf({ sentAt, referenceAt, receivedAt: this.clock.raw() });
    this.clock.correct(offsetMs);
    const from = this.last?.state ?? 'IN_BOUND';
    const state = clockSkewState(offsetMs, { alarmMs: this.config.clockSkewAlarmMs, stopMs: this.config.clockSkewStopMs });
    this.last = { offsetMs, uncertaintyMs, at: this.clock.now(), state };
    this.metrics.clockOffset.set(offsetMs);
    if (state !== from) {
      const line = `clock offset from the database ${offsetMs} ms (±${uncertaintyMs}): ${state}${state === 'STOPPED' ? ' — claiming no runs until it is back within ' + this.config.clockSkewStopMs + ' ms' : ''}`;
      if (state === 'IN_BOUND') this.logger.log(line);
      else this.logger.error(line);
    }
    return state;
  }
}
