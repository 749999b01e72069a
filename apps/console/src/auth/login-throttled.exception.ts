import { HttpStatus } from '@nestjs/common';
import { ApiException } from '../common/api-error';

/** 429 RATE_LIMITED: too many failed logins for this user name or client address; `Retry-After` says when to try again. */
export class LoginThrottledException extends ApiException {
  constructor(readonly retryAfterSeconds: number) {
    super(HttpStatus.TOO_MANY_REQUESTS, `Too many failed logins; try again in ${retryAfterSeconds} s`, { code: 'RATE_LIMITED' });
  }
}
