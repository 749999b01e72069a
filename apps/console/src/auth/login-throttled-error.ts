import { RetryLaterError } from '../common/retry-later-error';

/** 429 RATE_LIMITED: too many wrong passwords for this account from this client address, or from this address; `Retry-After` says when to try again. */
export class LoginThrottledError extends RetryLaterError {
  constructor(retryAfterSeconds: number) {
    super(`Too many failed password checks; try again in ${retryAfterSeconds} s`, retryAfterSeconds);
  }
}
