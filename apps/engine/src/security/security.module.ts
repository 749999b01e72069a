import { Module } from '@nestjs/common';
import { TenantsModule } from '../tenants/tenants.module';
import { RawBodyMiddleware } from './raw-body.middleware';
import { ReplayGuard } from './replay-guard';
import { SignedRequestAdmission } from './signed-request-admission';
import { SignedRequests } from './signed-requests';

/** Verification and admission of signed requests: one ReplayGuard and one SignedRequestAdmission per node, shared by every signed route. */
@Module({
  imports: [TenantsModule],
  providers: [{ provide: ReplayGuard, useFactory: () => new ReplayGuard() }, SignedRequestAdmission, SignedRequests, RawBodyMiddleware],
  exports: [SignedRequests, SignedRequestAdmission, RawBodyMiddleware],
})
export class SecurityModule {}
