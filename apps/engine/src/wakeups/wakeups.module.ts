import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { PATHS } from '@baton/protocol';
import { RawBodyMiddleware } from '../security/raw-body.middleware';
import { ExecutorsModule } from '../executors/executors.module';
import { SecurityModule } from '../security/security.module';
import { TenantsModule } from '../tenants/tenants.module';
import { CancelledController } from './cancelled.controller';
import { CancelledRuns } from './cancelled-runs';
import { WithdrawnFires } from './withdrawn-fires';
import { WakeController } from './wake.controller';

/**
 * The console's notices to the engines: a run is due before the next claim poll (`POST
 * /baton/wake`), runs that were sent are cancelled (`POST /baton/cancelled`: aborted at their executors).
 */
@Module({
  imports: [SecurityModule, ExecutorsModule, TenantsModule],
  controllers: [WakeController, CancelledController],
  // WithdrawnFires: for the callbacks and the watchdog too (RunsModule re-exports this module).
  providers: [CancelledRuns, WithdrawnFires],
  exports: [CancelledRuns, WithdrawnFires],
})
export class WakeupsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RawBodyMiddleware).forRoutes({ path: PATHS.wake, method: RequestMethod.POST }, { path: PATHS.cancelled, method: RequestMethod.POST });
  }
}
