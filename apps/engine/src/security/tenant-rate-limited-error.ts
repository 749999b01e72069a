import { HttpException } from '@nestjs/common';
import { errorBody, type TenantAdmissionRefusal } from '@baton/protocol';

/**
 * 429 TENANT_RATE_LIMITED: the signing tenant sent more signed requests to this engine than its
 * sustained rate (BATON_TENANT_REQUEST_RATE, BATON_TENANT_REQUEST_BURST) allows. The exception
 * filters send `retryAfterSeconds` as `Retry-After`.
 */
export class TenantRateLimitedError extends HttpException {
  readonly code = 'TENANT_RATE_LIMITED';

  constructor(readonly retryAfterSeconds: number) {
    const message = `This tenant sent more signed requests to this engine than its rate allows; retry in ${retryAfterSeconds} s`;
    super(errorBody(429, { code: 'TENANT_RATE_LIMITED', message }, { retryAfterSeconds }) as TenantAdmissionRefusal, 429);
  }
}
