import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { PATHS } from '@baton/protocol';
import { AlarmsModule } from '../alarms/alarms.module';
import { RawBodyMiddleware } from '../security/raw-body.middleware';
import { SecurityModule } from '../security/security.module';
import { TenantsModule } from '../tenants/tenants.module';
import { ClusterAddressGuard } from './cluster-address-guard';
import { DispatchBatcher } from './dispatch-batcher';
import { ExecutorClient } from './executor-client';
import { ExecutorRegistry } from './executor-registry';
import { HeartbeatController } from './heartbeat.controller';
import { HeartbeatService } from './heartbeat.service';
import { XxlJobClient } from './xxl-job-client';

/**
 * Executors as the engine sees them: the heartbeat endpoint (registry writes), the cached
 * routing table (ExecutorRegistry) and the signed HTTP client (ExecutorClient: dispatch, abort;
 * DispatchBatcher: the runs going to one executor together, in one request; XxlJobClient: the
 * same for XXL-JOB executors, in their protocol; ClusterAddressGuard: no executor at the cluster's
 * own listening addresses).
 */
@Module({
  imports: [AlarmsModule, SecurityModule, TenantsModule],
  controllers: [HeartbeatController],
  providers: [ExecutorClient, XxlJobClient, DispatchBatcher, ExecutorRegistry, HeartbeatService, ClusterAddressGuard],
  exports: [ExecutorClient, XxlJobClient, DispatchBatcher, ExecutorRegistry, HeartbeatService, ClusterAddressGuard],
})
export class ExecutorsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RawBodyMiddleware).forRoutes({ path: PATHS.heartbeat, method: RequestMethod.POST });
  }
}
