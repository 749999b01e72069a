import { Module } from '@nestjs/common';
import { AlarmsModule } from '../alarms/alarms.module';
import { BacklogAlarm } from '../watchdog/backlog-alarm';
import { TenantLoadSampler } from './tenant-load-sampler';

/** The tenants' load: per-tenant metrics and the BACKLOG_LATE alarm (a node worker: EngineModule hands it to the lifecycle). */
@Module({ imports: [AlarmsModule], providers: [TenantLoadSampler, BacklogAlarm], exports: [TenantLoadSampler] })
export class LoadModule {}
