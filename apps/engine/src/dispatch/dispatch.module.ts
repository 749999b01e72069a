import { Module } from '@nestjs/common';
import { CLOCK, type Clock } from '@baton/domain';
import { AlarmsModule } from '../alarms/alarms.module';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { ExecutorsModule } from '../executors/executors.module';
import { GroupPeers } from '../common/group-peers';
import { RunEvents } from '../runs/run-events';
import { RunsModule } from '../runs/runs.module';
import { TenantsModule } from '../tenants/tenants.module';
import { CallbackUrls } from './callback-urls';
import { CreditGate } from './credit-gate';
import { DirectStartsService } from './direct-starts';
import { DispatchAdmission } from './dispatch-admission';
import { DispatchRouter } from './dispatch-router';
import { DispatchSender } from './dispatch-sender';
import { Dispatcher } from './dispatcher';
import { DueQueue } from './due-queue';
import { LaneSender } from './lane-sender';
import { RELEASE_AT_ACK, releaseAtOutcome, SLOT_HOLD } from './slot-hold';

/**
 * The dispatch side's entry: DueQueue (claimed runs wait here for their millisecond, tokens and
 * a slot) and Dispatcher (a run per slot: route, start, send, verdict), with their parts:
 * DispatchAdmission (token buckets), DispatchRouter, DispatchSender (and LaneSender, the on-time
 * lane's thread), the CreditGate they share
 * (room on executors, fed by the credit the outcome callbacks report), CallbackUrls, the
 * SlotHold chosen here, and DirectStartsService (the in-process console's runs written already sent). The run's writes are the RunsModule's. Needs the global ENGINE_CONFIG,
 * CLOCK, EngineMetrics, GroupPeers and DataSource.
 */
@Module({
  imports: [AlarmsModule, ExecutorsModule, RunsModule, TenantsModule],
  providers: [
    DueQueue,
    Dispatcher,
    DirectStartsService,
    DispatchAdmission,
    DispatchRouter,
    DispatchSender,
    LaneSender,
    CallbackUrls,
    {
      provide: CreditGate,
      inject: [CLOCK, GroupPeers, RunEvents],
      useFactory: (clock: Clock, peers: GroupPeers, events: RunEvents) => {
        const gate = new CreditGate(clock, () => peers.sharing());
        events.onExecutorCredit((executorId, credit, creditSeq) => gate.reported(executorId, credit, creditSeq));
        return gate;
      },
    },
    {
      provide: SLOT_HOLD,
      inject: [ENGINE_CONFIG, RunEvents],
      useFactory: (config: EngineConfig, events: RunEvents) => (config.synchronousDispatch ? releaseAtOutcome(events) : RELEASE_AT_ACK),
    },
  ],
  exports: [DueQueue, Dispatcher],
})
export class DispatchModule {}
