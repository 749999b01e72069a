import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { PATHS } from '@baton/protocol';
import { AlarmsModule } from '../alarms/alarms.module';
import { RunsModule } from '../runs/runs.module';
import { RawBodyMiddleware } from '../security/raw-body.middleware';
import { SecurityModule } from '../security/security.module';
import { CallbacksController } from './callbacks.controller';
import { CallbacksService } from './callbacks.service';
import { EarlyStarts } from './early-starts';

/** The callback API (`POST /baton/callbacks`): executors report progress and outcomes to any engine. */
@Module({
  imports: [AlarmsModule, RunsModule, SecurityModule],
  controllers: [CallbacksController],
  providers: [CallbacksService, EarlyStarts],
  exports: [CallbacksService],
})
export class CallbacksModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RawBodyMiddleware).forRoutes({ path: PATHS.callback, method: RequestMethod.POST }, { path: PATHS.callbackBatch, method: RequestMethod.POST });
  }
}
