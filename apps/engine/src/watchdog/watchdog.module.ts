import { Module } from '@nestjs/common';
import { AlarmsModule } from '../alarms/alarms.module';
import { ExecutorsModule } from '../executors/executors.module';
import { RunsModule } from '../runs/runs.module';
import { TenantsModule } from '../tenants/tenants.module';
import { HeldKeysSweep } from './held-keys-sweep';
import { Watchdog } from './watchdog';

/** START_LATE, TIMEOUT, EXECUTOR_DOWN and the reconciliation of a dead executor's runs. */
@Module({
  imports: [AlarmsModule, ExecutorsModule, RunsModule, TenantsModule],
  providers: [Watchdog, HeldKeysSweep],
  exports: [Watchdog],
})
export class WatchdogModule {}
