import { HttpException } from '@nestjs/common';
import { errorBody, type TenantAdmissionRefusal } from '@baton/protocol';

/**
 * 429 TENANT_BUSY: the signing tenant already has as many signed requests worked on and waiting
 * on this engine as it may (BATON_TENANT_REQUESTS_IN_FLIGHT, BATON_TENANT_REQUESTS_WAITING).
 * The exception filters send `retryAfterSeconds` as `Retry-After`.
 */
export class TenantBusyError extends HttpException {
  readonly code = 'TENANT_BUSY';

  constructor(readonly retryAfterSeconds: number) {
    const message = `This tenant already has as many signed requests worked on and waiting on this engine as it may; retry in ${retryAfterSeconds} s`;
    super(errorBody(429, { code: 'TENANT_BUSY', message }, { retryAfterSeconds }) as TenantAdmissionRefusal, 429);
  }
}
