import { DynamicModule, Global, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { defaultNodeId } from '@baton/config';
import { CONSOLE_ALARM_BUS, CONSOLE_ALARM_BUS_OWNED, ConsoleAlarmBusCloser, consoleAlarmBus } from './alarms/console-alarm-bus';
import { EngineWakeups } from './wakeups/engine-wakeups';
import { RUN_WAKEUPS } from './wakeups/run-wakeups';
import { CLOCK, Clock, systemClock } from './common/clock';
import { TenantAdmission } from './common/tenant-admission';
import { TenantHeavyWork } from './common/tenant-heavy-work';
import { NO_SSO } from './common/sso-options';
import {
  CONSOLE_OPTIONS,
  ConsoleModuleOptions,
  DEFAULT_PASSWORD_HASH_ROUNDS,
  DEFAULT_RETENTION_CEILING,
  DEFAULT_SESSION_TTL_MS,
  ResolvedConsoleOptions,
} from './common/options';

/** The console's shared providers: the clock, the resolved options, the alarm bus, the engines' wake-ups, the tenants' admission and their heavy-work lanes. */
@Global()
@Module({})
export class ConsoleCoreModule {
  static forRoot(options: ConsoleModuleOptions): DynamicModule {
    const resolved: ResolvedConsoleOptions = {
      sessionTtlMs: options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS,
      passwordHashRounds: options.passwordHashRounds ?? DEFAULT_PASSWORD_HASH_ROUNDS,
      sessionCookieSecure: options.sessionCookieSecure ?? 'auto',
      consoleId: options.consoleId ?? defaultNodeId(),
      socketPath: options.socketPath ?? '/socket.io',
      socketCorsOrigins: options.socketCorsOrigins ?? [],
      alarmCatchUpMarginMs: options.alarmCatchUpMarginMs ?? 30_000,
      retentionCeiling: options.retentionCeiling ?? DEFAULT_RETENTION_CEILING,
      sso: options.sso ?? NO_SSO,
      traceUrlTemplate: options.traceUrlTemplate ?? null,
    };
    const clock: Clock = options.clock ?? systemClock;
    return {
      module: ConsoleCoreModule,
      providers: [
        { provide: CLOCK, useValue: clock },
        { provide: CONSOLE_OPTIONS, useValue: resolved },
        { provide: CONSOLE_ALARM_BUS, useFactory: () => consoleAlarmBus(options) },
        { provide: CONSOLE_ALARM_BUS_OWNED, useValue: options.alarmBus === undefined },
        ConsoleAlarmBusCloser,
        // One per console: every route of a tenant (ConsoleAuthGuard, inbound webhooks' deliveries) takes its places here.
        { provide: TenantAdmission, useFactory: () => new TenantAdmission() },
        TenantHeavyWork,
        { provide: RUN_WAKEUPS, useFactory: (dataSource: DataSource) => options.wakeups ?? new EngineWakeups(dataSource, clock), inject: [DataSource] },
      ],
      exports: [CLOCK, CONSOLE_OPTIONS, CONSOLE_ALARM_BUS, RUN_WAKEUPS, TenantAdmission, TenantHeavyWork],
    };
  }
}
