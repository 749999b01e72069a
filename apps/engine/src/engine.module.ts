import { DynamicModule, Module } from '@nestjs/common';
import { OffsetClock, systemClock } from '@baton/domain';
import { DatabaseModule } from '@baton/persistence';
import { readEngineConfig } from './config/engine-config';
import { EngineMetrics } from './metrics/engine-metrics';
import { EngineCoreModule } from './engine-core.module';
import type { EngineModuleOptions } from './engine-module-options';
import { DispatchModule } from './dispatch/dispatch.module';
import { RunsModule } from './runs/runs.module';
import { DueQueue } from './dispatch/due-queue';
import { CallbacksModule } from './callbacks/callbacks.module';
import { WakeupsModule } from './wakeups/wakeups.module';
import { ExecutorsModule } from './executors/executors.module';
import { WatchdogModule } from './watchdog/watchdog.module';
import { LoadModule } from './load/load.module';
import { TenantLoadSampler } from './load/tenant-load-sampler';
import { HistoryJob } from './history/history-job';
import { WebhookSender } from './alarms/webhook-sender';
import { Watchdog } from './watchdog/watchdog';
import { NODE_WORKERS } from './common/node-workers';
import { XxlJobAdminModule } from './xxl-job-admin/xxl-job-admin.module';
import { XxlJobBeats } from './xxl-job-admin/xxl-job-beats';
import { AlarmsModule } from './alarms/alarms.module';
import { OutboxRelay } from './alarms/outbox-relay';
import { DUE_QUEUE } from './claimer/due-queue-port';
import { ClaimerService } from './claimer/claimer.service';
import { ClaimTenants } from './claimer/claim-tenants';
import { LeaseRenewerService } from './claimer/lease-renewer.service';
import { PlannerService } from './planner/planner.service';
import { LivenessLock } from './node/liveness-lock';
import { ClockCheck } from './node/clock-check';
import { EngineNodeService } from './node/engine-node.service';
import { EngineLifecycleService } from './node/engine-lifecycle.service';
import { TakeoverService } from './node/takeover/takeover.service';
import { HealthController } from './http/health.controller';
import { MetricsController } from './http/metrics.controller';

/**
 * One engine node: claim side (node lifecycle, takeover, planner, claimer, leases, /health,
 * /metrics) and dispatch side (due queue, dispatcher, callback API, executor registry, watchdog),
 * the alarm outbox relay (publishes alarm rows on the alarm bus: ActiveMQ or in-process), and
 * the tenants' load (per-tenant metrics, BACKLOG_LATE).
 *
 *   EngineModule.forRoot({ config })              // opens config.databaseUrl itself (standalone engine)
 *   EngineModule.forRoot({ config, dataSource })  // shares the host's data source (embedded mode)
 *
 * Nothing runs until `startEngine(app)` (start-engine.ts) is called after the HTTP server
 * listens: the node registers with its callback URL, which is only known then (port 0).
 */
@Module({})
export class EngineModule {
  static forRoot(options: EngineModuleOptions = {}): DynamicModule {
    const config = options.config ?? readEngineConfig();
    const database =
      options.provideDatabase === false
        ? []
        : [DatabaseModule.forRoot(options.dataSource ? { dataSource: options.dataSource } : { url: config.databaseUrl })];
    return {
      module: EngineModule,
      imports: [
        ...database,
        EngineCoreModule.forRoot(config, options.clock ?? new OffsetClock(systemClock), options.metrics ?? new EngineMetrics(), options.alarmBus, options.wakeups),
        AlarmsModule,
        RunsModule,
        DispatchModule,
        CallbacksModule,
        WakeupsModule,
        ExecutorsModule,
        WatchdogModule,
        LoadModule,
        XxlJobAdminModule,
      ],
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: DUE_QUEUE, useExisting: DueQueue },
        {
          provide: NODE_WORKERS,
          useFactory: (watchdog: Watchdog, relay: OutboxRelay, history: HistoryJob, webhooks: WebhookSender, load: TenantLoadSampler, clock: ClockCheck, xxlBeats: XxlJobBeats) => [
            watchdog,
            relay,
            history,
            webhooks,
            load,
            clock,
            xxlBeats,
          ],
          inject: [Watchdog, OutboxRelay, HistoryJob, WebhookSender, TenantLoadSampler, ClockCheck, XxlJobBeats],
        },
        ClockCheck,
        HistoryJob,
        WebhookSender,
        LivenessLock,
        EngineNodeService,
        TakeoverService,
        PlannerService,
        ClaimerService,
        ClaimTenants,
        LeaseRenewerService,
        EngineLifecycleService,
      ],
      exports: [EngineLifecycleService, PlannerService, ClaimerService, TakeoverService],
    };
  }
}
