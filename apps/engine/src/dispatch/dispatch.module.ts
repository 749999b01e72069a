import { Module } from '@nestjs/common';
import { AlarmsModule } from '../alarms/alarms.module';
import { ExecutorsModule } from '../executors/executors.module';
import { FollowUpsModule } from '../follow-ups/follow-ups.module';
import { TenantsModule } from '../tenants/tenants.module';
import { CallbackUrls } from './callback-urls';
import { DispatchMarks } from './dispatch-marks';
import { Dispatcher } from './dispatcher';
import { DueQueue } from './due-queue';

/**
 * The dispatch side's entry: DueQueue (claimed runs wait here for their millisecond, tokens and
 * a slot) and Dispatcher (routing, concurrency policy, signed POST, ack). Needs the global
 * ENGINE_CONFIG, CLOCK, EngineMetrics and DataSource.
 */
@Module({
  imports: [AlarmsModule, ExecutorsModule, FollowUpsModule, TenantsModule],
  providers: [DueQueue, Dispatcher, DispatchMarks, CallbackUrls],
  exports: [DueQueue, Dispatcher],
})
export class DispatchModule {}
