import { DynamicModule, Global, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_FILTER } from '@nestjs/core';
import { CLOCK, Clock } from '@baton/domain';
import type { AlarmBus, InProcessWakeups } from '@baton/messaging';
import { ClaimSignal } from './common/claim-signal';
import { ExecutorRestarts } from './common/executor-restarts';
import { ClockWatch } from './common/clock-watch';
import { NodeLiveness } from './common/node-liveness';
import { RecentCancels } from './common/recent-cancels';
import { WokenRows } from './common/woken-rows';
import { TenantPace } from './claimer/tenant-pace';
import { ENGINE_CONFIG, EngineConfig } from './config/engine-config';
import { DatabasePoolWaits } from './metrics/database-pool-waits';
import { EngineMetrics } from './metrics/engine-metrics';
import { MetricsTenantLabels, openMetricsTenantLabels } from './metrics/metrics-tenant-labels';
import { GroupPeers } from './common/group-peers';
import { EngineExceptionFilter } from './http/engine-exception.filter';
import { ENGINE_ALARM_BUS, ENGINE_ALARM_BUS_OWNED, EngineAlarmBusCloser, engineAlarmBus } from './alarms/engine-alarm-bus';
import { IN_PROCESS_WAKEUPS } from './wakeups/in-process-wakeups';

/**
 * The engine's shared injectables, global so both sides of the engine (claim and dispatch) and
 * their modules inject them without importing anything: ENGINE_CONFIG, CLOCK, EngineMetrics,
 * ENGINE_ALARM_BUS (the given bus, else STOMP to config.brokerUrl, else in-process; one the
 * engine made is closed at shutdown), GroupPeers (the other live engines), ClockWatch (the clock's offset from the database's), RecentCancels (runs the console cancelled lately), ExecutorRestarts (executors' new processes, for the watchdog), ClaimSignal (runs to
 * claim now; it hears the in-process console's wake-ups in embedded mode), WokenRows (the runs those wake-ups carry), TenantPace (runs each tenant's executors accepted lately); and the app-wide
 * EngineExceptionFilter, so every engine app answers errors as ErrorBody; DatabasePoolWaits counts the waits for a database connection.
 */
@Global()
@Module({})
export class EngineCoreModule {
  static forRoot(config: EngineConfig, clock: Clock, metrics: EngineMetrics, alarmBus?: AlarmBus, wakeups?: InProcessWakeups): DynamicModule {
    return {
      module: EngineCoreModule,
      providers: [
        { provide: ENGINE_CONFIG, useValue: config },
        { provide: CLOCK, useValue: clock },
        { provide: EngineMetrics, useValue: metrics },
        { provide: MetricsTenantLabels, useFactory: (dataSource: DataSource) => openMetricsTenantLabels(dataSource, config, clock), inject: [DataSource] },
        { provide: ENGINE_ALARM_BUS, useFactory: () => engineAlarmBus(config, alarmBus) },
        { provide: ENGINE_ALARM_BUS_OWNED, useValue: alarmBus === undefined },
        EngineAlarmBusCloser,
        GroupPeers,
        ClockWatch,
        NodeLiveness,
        RecentCancels,
        ExecutorRestarts,
        WokenRows,
        {
          provide: ClaimSignal,
          useFactory: (woken: WokenRows) => {
            const signal = new ClaimSignal(config, clock);
            wakeups?.listen((wakeup) => {
              const carried = wakeup.runs !== undefined && wakeup.runs.length > 0;
              if (carried) woken.put(wakeup.tenantId, wakeup.runs!);
              signal.wake(wakeup, carried);
            });
            return signal;
          },
          inject: [WokenRows],
        },
        TenantPace,
        DatabasePoolWaits,
        { provide: IN_PROCESS_WAKEUPS, useValue: wakeups ?? null },
        { provide: APP_FILTER, useClass: EngineExceptionFilter },
      ],
      exports: [ENGINE_CONFIG, CLOCK, EngineMetrics, MetricsTenantLabels, ENGINE_ALARM_BUS, GroupPeers, ClockWatch, NodeLiveness, RecentCancels, ExecutorRestarts, ClaimSignal, WokenRows, TenantPace, IN_PROCESS_WAKEUPS],
    };
  }
}
