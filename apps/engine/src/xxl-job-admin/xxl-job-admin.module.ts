import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { CallbacksModule } from '../callbacks/callbacks.module';
import { ExecutorsModule } from '../executors/executors.module';
import { RawBodyMiddleware } from '../security/raw-body.middleware';
import { SecurityModule } from '../security/security.module';
import { TenantsModule } from '../tenants/tenants.module';
import { XxlJobAdminController } from './xxl-job-admin.controller';
import { XxlJobAdminService } from './xxl-job-admin.service';
import { XxlJobBeats } from './xxl-job-beats';

/**
 * XXL-JOB executors unchanged: the admin side of XXL-JOB's executor protocol per tenant
 * (registration, removal, result callbacks) and the beats that keep them UP. Dispatch, kill and
 * log pulls go through ExecutorsModule's XxlJobClient.
 */
@Module({
  imports: [CallbacksModule, ExecutorsModule, SecurityModule, TenantsModule],
  controllers: [XxlJobAdminController],
  providers: [XxlJobAdminService, XxlJobBeats],
  exports: [XxlJobBeats],
})
export class XxlJobAdminModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RawBodyMiddleware).forRoutes({ path: 'xxl-job-admin/*path', method: RequestMethod.POST });
  }
}
