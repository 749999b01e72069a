import { HttpStatus } from '@nestjs/common';
import { ApiException } from '../common/api-error';

/** 429 RATE_LIMITED: too many wrong passwords for this account from this client address, or from this address; `Retry-After` says when to try again. */
export class LoginThrottledException extends ApiException {
  constructor(readonly retryAfterSeconds: number) {
    super(HttpStatus.TOO_MANY_REQUESTS, `Too many failed password checks; try again in ${retryAfterSeconds} s`, { code: 'RATE_LIMITED' });
  }
}

/** Sets `Retry-After` on the answer when `error` is a LoginThrottledException (the caller rethrows it). */
export function setRetryAfter(error: unknown, response: { setHeader(name: string, value: string): unknown }): void {
  if (error instanceof LoginThrottledException) response.setHeader('Retry-After', String(error.retryAfterSeconds));
}
