import { Module } from '@nestjs/common';
import { AlarmsModule } from '../alarms/alarms.module';
import { ExecutorsModule } from '../executors/executors.module';
import { FollowUpsModule } from '../follow-ups/follow-ups.module';
import { TenantsModule } from '../tenants/tenants.module';
import { CallbackUrls } from './callback-urls';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { RunEvents } from '../follow-ups/run-events';
import { DispatchAdmission } from './dispatch-admission';
import { DispatchMarks } from './dispatch-marks';
import { Dispatcher } from './dispatcher';
import { DueQueue } from './due-queue';
import { RunStart } from './run-start';
import { RELEASE_AT_ACK, releaseAtOutcome, SLOT_HOLD } from './slot-hold';

/**
 * The dispatch side's entry: DueQueue (claimed runs wait here for their millisecond, tokens and
 * a slot) and Dispatcher (routing, room on an executor, signed POST, ack), with their parts:
 * DispatchAdmission (token buckets), RunStart (concurrency policy and the DISPATCHED mark),
 * DispatchMarks, CallbackUrls, and the SlotHold chosen here. Needs the global ENGINE_CONFIG,
 * CLOCK, EngineMetrics and DataSource.
 */
@Module({
  imports: [AlarmsModule, ExecutorsModule, FollowUpsModule, TenantsModule],
  providers: [
    DueQueue,
    Dispatcher,
    DispatchAdmission,
    RunStart,
    DispatchMarks,
    CallbackUrls,
    {
      provide: SLOT_HOLD,
      inject: [ENGINE_CONFIG, RunEvents],
      useFactory: (config: EngineConfig, events: RunEvents) => (config.synchronousDispatch ? releaseAtOutcome(events) : RELEASE_AT_ACK),
    },
  ],
  exports: [DueQueue, Dispatcher],
})
export class DispatchModule {}
