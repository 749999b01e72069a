import { HttpStatus } from '@nestjs/common';
import { ApiError } from './api-error';

/** 429 RATE_LIMITED with how long to wait: the exception filter sends it as `Retry-After`. */
export class RetryLaterError extends ApiError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(HttpStatus.TOO_MANY_REQUESTS, message, { code: 'RATE_LIMITED' });
  }
}
