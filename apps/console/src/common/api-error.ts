import { HttpException, HttpStatus } from '@nestjs/common';
import { describeFieldErrors, errorBody, type ErrorBody, type ErrorCode, type FieldError } from '@baton/protocol';

export type { FieldError } from '@baton/protocol';

/** The body of every console 4xx/5xx answer: the ErrorBody of @baton/protocol, plus a route's documented keys (e.g. `cycle`). */
export type ApiErrorBody = ErrorBody & Record<string, unknown>;

/** `code` (default: the status's, see errorCodeOf), the fields at fault, and a route's documented keys. */
export type ApiErrorExtra = { code?: ErrorCode; errors?: FieldError[] } & Record<string, unknown>;

/** An HTTP error whose body is already an ErrorBody. */
export class ApiException extends HttpException {
  constructor(status: number, message: string, { code, errors, ...extra }: ApiErrorExtra = {}) {
    super(errorBody(status, { code, message, errors }, extra), status);
  }
}

/** 429 RATE_LIMITED with how long to wait: the exception filter sends it as `Retry-After`. */
export class RetryLaterException extends ApiException {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(HttpStatus.TOO_MANY_REQUESTS, message, { code: 'RATE_LIMITED' });
  }
}

/** 400 VALIDATION_FAILED naming each field and its reason. */
export function badRequest(errors: FieldError[], message?: string): ApiException {
  return new ApiException(HttpStatus.BAD_REQUEST, message ?? `Invalid request: ${describeFieldErrors(errors)}`, { errors });
}

/** 404. Also what another tenant's object looks like: indistinguishable from a missing one. */
export function notFound(what: string, id: string | number): ApiException {
  return new ApiException(HttpStatus.NOT_FOUND, `${what} ${id} not found`);
}

/** 409 CONFLICT (or the more specific `extra.code`), optionally naming fields (e.g. a duplicate `name`). */
export function conflict(message: string, errors?: FieldError[], extra: ApiErrorExtra = {}): ApiException {
  return new ApiException(HttpStatus.CONFLICT, message, { ...extra, ...(errors ? { errors } : {}) });
}

export function forbidden(message = 'Forbidden'): ApiException {
  return new ApiException(HttpStatus.FORBIDDEN, message);
}

export function unauthorized(message = 'Authentication required'): ApiException {
  return new ApiException(HttpStatus.UNAUTHORIZED, message);
}
