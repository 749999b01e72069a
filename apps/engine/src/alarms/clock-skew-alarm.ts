import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { findClaimTenants, inTransaction } from '@baton/persistence';
import type { ClockMeasure } from '../common/clock-watch';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { Alarms } from './alarms';

/** A CLOCK_SKEW repeated within this window is counted into the unacknowledged one (an offset that flaps across its bound). */
const CLOCK_SKEW_SILENCE_MS = 10 * 60_000;

/**
 * CLOCK_SKEW (issue 39 item 2): this engine's clock went beyond BATON_CLOCK_SKEW_ALARM_MS of the
 * database's. Raised once per episode and way it is off (ClockCheck says when), to every tenant of
 * the engine's groups — their runs are the ones it schedules — in one transaction; no task. A
 * later one within the silence window counts into the tenant's open CLOCK_SKEW and gives it its
 * message (`refresh`): the alarm says what stands now — first 1197 ms ahead, then 3 s behind and
 * claiming nothing said the first all along. It does not name the engine (its node id names its
 * host by default): the operator finds it in the engine's log (ClockWatch) and on the engine
 * nodes page (clock offset).
 */
@Injectable()
export class ClockSkewAlarm {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    private readonly alarms: Alarms,
  ) {}

  async raise(measure: ClockMeasure): Promise<void> {
    const tenants = await findClaimTenants(this.dataSource.manager, this.config.groups);
    const stopped = measure.state === 'STOPPED';
    const message =
      `An engine of your engine group: its clock is ${Math.abs(measure.offsetMs)} ms ${measure.offsetMs < 0 ? 'ahead of' : 'behind'} the database's (±${measure.uncertaintyMs} ms; bound ${this.config.clockSkewAlarmMs} ms). ` +
      (stopped ? `Beyond ${this.config.clockSkewStopMs} ms it claims no runs until its clock is fixed; other engines of its groups take them.` : 'It schedules on the database\'s time meanwhile, until the operator fixes its clock.');
    await inTransaction(this.dataSource, async (em) => {
      for (const tenant of tenants) {
        await this.alarms.raise(em, {
          tenantId: tenant.id,
          type: 'CLOCK_SKEW',
          message,
          data: { offsetMs: measure.offsetMs, uncertaintyMs: measure.uncertaintyMs, state: measure.state },
          silenceMs: CLOCK_SKEW_SILENCE_MS,
          refresh: true,
          now: measure.at,
        });
      }
    });
  }
}
