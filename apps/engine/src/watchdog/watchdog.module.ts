import { Module } from '@nestjs/common';
import { AlarmsModule } from '../alarms/alarms.module';
import { ExecutorsModule } from '../executors/executors.module';
import { RunsModule } from '../runs/runs.module';
import { TenantsModule } from '../tenants/tenants.module';
import { HeldKeysSweep } from './held-keys-sweep';
import { SentAheadHandBacks } from './sent-ahead-hand-backs';
import { WithdrawalsSweep } from './withdrawals-sweep';
import { Watchdog } from './watchdog';

/** START_LATE, TIMEOUT, EXECUTOR_DOWN, the hand-back of what a dead executor never started and the reconciliation of its other runs. */
@Module({
  imports: [AlarmsModule, ExecutorsModule, RunsModule, TenantsModule],
  providers: [Watchdog, HeldKeysSweep, SentAheadHandBacks, WithdrawalsSweep],
  exports: [Watchdog],
})
export class WatchdogModule {}
