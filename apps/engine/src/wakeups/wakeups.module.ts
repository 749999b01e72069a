import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { PATHS } from '@baton/protocol';
import { RawBodyMiddleware } from '../security/raw-body.middleware';
import { SecurityModule } from '../security/security.module';
import { WakeController } from './wake.controller';

/** The wake-up route (`POST /baton/wake`): the console's notice that a run is due before the next claim poll. */
@Module({
  imports: [SecurityModule],
  controllers: [WakeController],
})
export class WakeupsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RawBodyMiddleware).forRoutes({ path: PATHS.wake, method: RequestMethod.POST });
  }
}
