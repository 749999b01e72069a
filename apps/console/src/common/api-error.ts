import { HttpException, HttpStatus } from '@nestjs/common';
import { describeFieldErrors, errorBody, type ErrorBody, type ErrorCode, type FieldError } from '@baton/protocol';

export type { FieldError } from '@baton/protocol';

/** The body of every console 4xx/5xx answer: the ErrorBody of @baton/protocol, plus a route's documented keys (e.g. `cycle`). */
export type ApiErrorBody = ErrorBody & Record<string, unknown>;

/** `code` (default: the status's, see errorCodeOf), the fields at fault, and a route's documented keys. */
export type ApiErrorExtra = { code?: ErrorCode; errors?: FieldError[] } & Record<string, unknown>;

/** An HTTP error whose body is already an ErrorBody; `code` is the body's (given, or the status's). */
export class ApiError extends HttpException {
  readonly code: ErrorCode;

  constructor(status: number, message: string, { code, errors, ...extra }: ApiErrorExtra = {}) {
    const body = errorBody(status, { code, message, errors }, extra);
    super(body, status);
    this.code = body.code;
  }
}

/** Most field errors a 400 lists (100): a 40 KB tasks-as-code file of mistakes made a 1.35 MB answer. */
export const MAX_FIELD_ERRORS = 100;

/**
 * 400 VALIDATION_FAILED naming each field and its reason: the first MAX_FIELD_ERRORS, then (field
 * `errors`) how many more there are. Its message is the one field errors read in every API's
 * answer (`field: reason; …`, errorBody's), as the refusals of a run's submission and the engines' have it.
 */
export function badRequest(errors: FieldError[]): ApiError {
  const listed = errors.length <= MAX_FIELD_ERRORS ? errors : [...errors.slice(0, MAX_FIELD_ERRORS), { field: 'errors', reason: `${errors.length - MAX_FIELD_ERRORS} more not listed (the first ${MAX_FIELD_ERRORS} are)` }];
  return new ApiError(HttpStatus.BAD_REQUEST, describeFieldErrors(listed), { errors: listed });
}

/** 404. Also what another tenant's object looks like: indistinguishable from a missing one. */
export function notFound(what: string, id: string | number): ApiError {
  return new ApiError(HttpStatus.NOT_FOUND, `${what} ${id} not found`);
}

/** 409 CONFLICT (or the more specific `extra.code`), optionally naming fields (e.g. a duplicate `name`). */
export function conflict(message: string, errors?: FieldError[], extra: ApiErrorExtra = {}): ApiError {
  return new ApiError(HttpStatus.CONFLICT, message, { ...extra, ...(errors ? { errors } : {}) });
}

export function forbidden(message = 'Forbidden'): ApiError {
  return new ApiError(HttpStatus.FORBIDDEN, message);
}

export function unauthorized(message = 'Authentication required'): ApiError {
  return new ApiError(HttpStatus.UNAUTHORIZED, message);
}
