import { Module } from '@nestjs/common';
import { TenantsModule } from '../tenants/tenants.module';
import { RawBodyMiddleware } from './raw-body.middleware';
import { ReplayGuard } from './replay-guard';
import { SignedRequests } from './signed-requests';

/** Verification of executor-signed requests: one ReplayGuard per node, shared by every signed route. */
@Module({
  imports: [TenantsModule],
  providers: [{ provide: ReplayGuard, useFactory: () => new ReplayGuard() }, SignedRequests, RawBodyMiddleware],
  exports: [SignedRequests, RawBodyMiddleware],
})
export class SecurityModule {}
