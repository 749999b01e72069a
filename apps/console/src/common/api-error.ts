import { HttpException, HttpStatus } from '@nestjs/common';

/** One thing wrong with a request: the field as a dotted path (`trigger.expression`) and why. */
export interface FieldError {
  field: string;
  reason: string;
}

/**
 * The body of every console 4xx/5xx answer. `errors` names the fields at fault;
 * a few errors add their own keys (e.g. `code` and `cycle` for DEPENDENCY_CYCLE).
 */
export interface ApiErrorBody {
  statusCode: number;
  error: string;
  message: string;
  errors?: FieldError[];
  code?: string;
  [extra: string]: unknown;
}

const REASON_PHRASES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function reasonPhrase(status: number): string {
  return REASON_PHRASES[status] ?? (status >= 500 ? 'Internal Server Error' : 'Error');
}

/** An HTTP error whose body is already in the console's shape. */
export class ApiException extends HttpException {
  constructor(status: number, message: string, extra: Omit<Partial<ApiErrorBody>, 'statusCode' | 'message'> = {}) {
    super({ statusCode: status, error: reasonPhrase(status), message, ...extra } satisfies ApiErrorBody, status);
  }
}

function describe(errors: FieldError[]): string {
  return errors.map((e) => `${e.field}: ${e.reason}`).join('; ');
}

/** 400 naming each field and its reason. */
export function badRequest(errors: FieldError[], message?: string): ApiException {
  return new ApiException(HttpStatus.BAD_REQUEST, message ?? `Invalid request: ${describe(errors)}`, { errors });
}

/** 404. Also what another tenant's object looks like: indistinguishable from a missing one. */
export function notFound(what: string, id: string | number): ApiException {
  return new ApiException(HttpStatus.NOT_FOUND, `${what} ${id} not found`);
}

/** 409, optionally naming fields (e.g. a duplicate `name`). */
export function conflict(message: string, errors?: FieldError[], extra: Record<string, unknown> = {}): ApiException {
  return new ApiException(HttpStatus.CONFLICT, message, { ...(errors ? { errors } : {}), ...extra });
}

export function forbidden(message = 'Forbidden'): ApiException {
  return new ApiException(HttpStatus.FORBIDDEN, message);
}

export function unauthorized(message = 'Authentication required'): ApiException {
  return new ApiException(HttpStatus.UNAUTHORIZED, message);
}
