import { DynamicModule, Module, Type } from '@nestjs/common';
import { DatabaseModule } from '@baton/persistence';
import { AlarmsModule } from './alarms/alarms.module';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { AuditModule } from './audit/audit.module';
import { AuthModule } from './auth/auth.module';
import { CalendarsModule } from './calendars/calendars.module';
import { ConfigAsCodeModule } from './config-as-code/config.module';
import { ConsoleCoreModule } from './console-core.module';
import type { ConsoleModuleOptions } from './common/options';
import { DashboardModule } from './dashboard/dashboard.module';
import { DependenciesModule } from './dependencies/dependencies.module';
import { EventsModule } from './events/events.module';
import { InboundWebhooksModule } from './inbound-webhooks/inbound-webhooks.module';
import { ExecutorsModule } from './executors/executors.module';
import { HealthModule } from './health/health.module';
import { LoadModule } from './load/load.module';
import { OperatorModule } from './operator/operator.module';
import { PreferencesModule } from './preferences/preferences.module';
import { UsersModule } from './users/users.module';
import { RunsModule } from './runs/runs.module';
import { StatsModule } from './stats/stats.module';
import { RetentionModule } from './retention/retention.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { SubmissionsModule } from './submissions/submissions.module';
import { TasksModule } from './tasks/tasks.module';
import { ConsoleUiModule } from './web/console-ui.module';
import { ConsoleLiveModule } from './live/live.module';

/** The console's feature modules: their controllers make up the REST API and its OpenAPI document. */
export const CONSOLE_FEATURE_MODULES: Type[] = [
  AuthModule,
  HealthModule,
  TasksModule,
  SubmissionsModule,
  EventsModule,
  InboundWebhooksModule,
  ConfigAsCodeModule,
  DependenciesModule,
  CalendarsModule,
  RunsModule,
  ExecutorsModule,
  LoadModule,
  AlarmsModule,
  StatsModule,
  RetentionModule,
  WebhooksModule,
  ApiKeysModule,
  OperatorModule,
  UsersModule,
  PreferencesModule,
  DashboardModule,
  AuditModule,
  ConsoleUiModule,
];

/**
 * The tenant/operator REST API under `/api`.
 *
 *   ConsoleModule.forRoot({ databaseUrl: 'sqlite:data/baton.sqlite' })  // opens (and closes) its own data source
 *   ConsoleModule.forRoot({ dataSource })                               // shares one opened by the host
 *   ConsoleModule.forRoot({})                                           // the host imports DatabaseModule itself
 *
 * Then call `configureConsoleApp(app)` on the Nest application (validation, error shape, body
 * limit, Swagger).
 */
@Module({})
export class ConsoleModule {
  static forRoot(options: ConsoleModuleOptions = {}): DynamicModule {
    if (options.databaseUrl !== undefined && options.dataSource !== undefined) {
      throw new Error('ConsoleModule.forRoot: give databaseUrl or dataSource, not both');
    }
    const database =
      options.databaseUrl !== undefined
        ? [DatabaseModule.forRoot({ url: options.databaseUrl })]
        : options.dataSource !== undefined
          ? [DatabaseModule.forRoot({ dataSource: options.dataSource })]
          : [];
    return {
      module: ConsoleModule,
      imports: [...database, ConsoleCoreModule.forRoot(options), ...CONSOLE_FEATURE_MODULES, ConsoleLiveModule],
    };
  }
}
