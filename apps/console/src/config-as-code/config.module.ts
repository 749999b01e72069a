import { Module } from '@nestjs/common';
import { CalendarsModule } from '../calendars/calendars.module';
import { DependenciesModule } from '../dependencies/dependencies.module';
import { TasksModule } from '../tasks/tasks.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { ConfigController } from './config.controller';
import { ConfigService } from './config.service';

@Module({ imports: [CalendarsModule, DependenciesModule, TasksModule, WebhooksModule], controllers: [ConfigController], providers: [ConfigService] })
export class ConfigAsCodeModule {}
