import { HttpStatus } from '@nestjs/common';
import type { ErrorCode } from '@baton/protocol';
import { ApiError } from './api-error';

/** 429 (RATE_LIMITED unless told) with how long to wait: the exception filter sends it as `Retry-After`. */
export class RetryLaterError extends ApiError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    code: ErrorCode = 'RATE_LIMITED',
  ) {
    super(HttpStatus.TOO_MANY_REQUESTS, message, { code });
  }
}
