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

/** Readings per measure, at most: the first precise one ends it. */
const MEASURE_TRIES = 3;

/**
 * Half the round trip of the reading a measure takes, at most (ms): on a healthy link a SELECT
 * answers in a millisecond or two, so this admits a loaded machine's readings and keeps a
 * measure's error well under the 20 ms a start may be early (EARLY_START_TOLERANCE_MS).
 */
export const MAX_CLOCK_UNCERTAINTY_MS = 10;

/**
 * Clocks measured, not trusted (issue 39 item 2). At each heartbeat the engine reads the
 * database's time (one SELECT) and takes the offset from its own clock; its clock (an OffsetClock,
 * the engine's CLOCK in production) then reads the machine's time plus the offset sure not to put
 * it ahead of the database's (offsetOf's notAheadMs: behind by at most the round trip and 2 ms,
 * never ahead), so every engine of a cluster schedules on the database's time and a
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

  /**
   * Measures the offset and applies it (a change of state is logged); returns the state, or null
   * when the clock is not an OffsetClock. Of MEASURE_TRIES readings the one with the shortest round
   * trip counts, and only if its uncertainty is within MAX_CLOCK_UNCERTAINTY_MS: a reading held
   * up (a loaded machine, a slow or black-holed link released at once) has its answer anywhere in
   * the round trip, and applied, it would move every run the engine sends by up to half of it.
   * An imprecise round changes nothing: the last precise measure stays.
   */
  async check(): Promise<ClockSkewState | null> {
    const clock = this.clock;
    if (!(clock instanceof OffsetClock)) return null;
    let best: { offsetMs: number; uncertaintyMs: number; notAheadMs: number } | null = null;
    for (let i = 0; i < MEASURE_TRIES && (best === null || best.uncertaintyMs > MAX_CLOCK_UNCERTAINTY_MS); i++) {
      const sentAt = clock.raw();
      const referenceAt = await readDatabaseTime(this.dataSource.manager);
      const reading = offsetOf({ sentAt, referenceAt, receivedAt: clock.raw() });
      if (best === null || reading.uncertaintyMs < best.uncertaintyMs) best = reading;
    }
    if (best!.uncertaintyMs > MAX_CLOCK_UNCERTAINTY_MS) {
      this.logger.debug(`clock offset not measured: the database's answer took ${best!.uncertaintyMs * 2} ms at best`);
      return this.last?.state ?? 'IN_BOUND';
    }
    const { offsetMs, uncertaintyMs, notAheadMs } = best!;
    // Never ahead of the database's time: a run is not started early by the measure's error, at most its round trip late.
    clock.correct(notAheadMs);
    const from = this.last?.state ?? 'IN_BOUND';
    const state = clockSkewState(offsetMs, { alarmMs: this.config.clockSkewAlarmMs, stopMs: this.config.clockSkewStopMs });
    this.last = { offsetMs, uncertaintyMs, at: this.clock.now(), state };
    this.metrics.clockOffset.set(offsetMs / 1000);
    if (state !== from) {
      const line = `clock offset from the database ${offsetMs} ms (±${uncertaintyMs}): ${state}${state === 'STOPPED' ? ' — claiming no runs until it is back within ' + this.config.clockSkewStopMs + ' ms' : ''}`;
      if (state === 'IN_BOUND') this.logger.log(line);
      else this.logger.error(line);
    }
    return state;
  }
}
