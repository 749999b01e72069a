/**
 * The one body of every error answer of Baton's HTTP APIs: the console's REST API (`/api/…`)
 * and an engine's routes (callbacks, heartbeats, unknown routes). Documented as ErrorBody in
 * openapi.yaml and at the console's /api/docs. (An executor's own refusals are DispatchRefusal.)
 *
 * This file imports nothing, so a browser client can import its types too.
 */

/**
 * What went wrong, stable and machine-readable: clients branch on it (the message is for
 * people and may change). Each code goes with one HTTP status:
 * - VALIDATION_FAILED 400: malformed JSON, a field missing or wrong (`errors` names each one);
 * - UNAUTHORIZED 401: no or a bad session or API key;
 * - BAD_SIGNATURE 401 (engine): an executor's request signature is missing, wrong, stale,
 *   replayed, or of another tenant (SignatureRefusal says which);
 * - FORBIDDEN 403: authenticated, but not allowed;
 * - NOT_FOUND 404: no such route or object (another tenant's object looks the same);
 * - CONFLICT 409: the state forbids it (a duplicate name, a stale version, a stale callback);
 * - DEPENDENCY_CYCLE 409: the dependency edge would close a cycle (`cycle` names it, `errors` the edge's field);
 * - TASK_HAS_DEPENDENCIES 409: the task is in dependency edges (`dependencyIds`);
 * - PAYLOAD_TOO_LARGE 413, UNSUPPORTED_MEDIA_TYPE 415, RATE_LIMITED 429;
 * - UNAVAILABLE 503, with `Retry-After`: the database is unreachable (or the server is closing
 *   its connections as it shuts down), or a write met lock conflicts in all its attempts; send again;
 * - TENANT_BUSY 429: the tenant already has as many requests worked on and waiting as it may —
 *   on an engine its signed requests, on a console its API requests; TENANT_RATE_LIMITED 429 (engine): the signing tenant
 *   sent more signed requests than its sustained rate on this engine. Both with `Retry-After`
 *   (seconds); a client retries later, as after any 429;
 * - INTERNAL 500: an unexpected error, logged by the server; the body tells nothing more.
 */
export const ERROR_CODES = [
  'VALIDATION_FAILED',
  'UNAUTHORIZED',
  'BAD_SIGNATURE',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'DEPENDENCY_CYCLE',
  'TASK_HAS_DEPENDENCIES',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'TENANT_BUSY',
  'TENANT_RATE_LIMITED',
  'UNAVAILABLE',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** One thing wrong with a request: the field as a dotted path (`trigger.expression`, `logs[2].message`, `body`), or a header by its lower-case name (`content-type`), and why. */
export interface FieldError {
  field: string;
  reason: string;
}

/**
 * Every error answer. A few add documented keys of their own (SignatureRefusal,
 * CallbackConflict, the console's DEPENDENCY_CYCLE `cycle`); clients ignore keys they do not know.
 */
export interface ErrorBody {
  /** The HTTP status, repeated. */
  statusCode: number;
  code: ErrorCode;
  /** The HTTP reason phrase (`Bad Request`). */
  error: string;
  /** For people; with field errors, `field: reason; …`. */
  message: string;
  /** The fields at fault, when fields are. */
  errors?: FieldError[];
}

/**
 * Which check of a signed request failed (MISSING_HEADERS, STALE_TIMESTAMP, MALFORMED_SIGNATURE
 * — not lower-case hex of exactly 64 characters —, BAD_SIGNATURE come from `verify`; SECRET_EXPIRED: signed with the previous executor secret after its rotation's
 * overlap window). A tenant that does not exist is refused as a wrong secret of one that does
 * (BAD_SIGNATURE, or whichever of the checks before the HMAC failed first): no reason tells
 * whether a tenant exists.
 */
export type SignatureRefusalReason = 'MISSING_HEADERS' | 'STALE_TIMESTAMP' | 'MALFORMED_SIGNATURE' | 'BAD_SIGNATURE' | 'SECRET_EXPIRED' | 'REPLAYED' | 'TENANT_MISMATCH';

/** 401 BAD_SIGNATURE of an engine: the ErrorBody and which check failed. The executor keeps retrying (a configuration or clock problem). */
export interface SignatureRefusal extends ErrorBody {
  reason: SignatureRefusalReason;
}

/** 409 CONFLICT to a callback: the attempt is over (STALE) or not a run of this tenant (UNKNOWN_RUN). Counts as delivered. */
export interface CallbackConflict extends ErrorBody {
  accepted: false;
  runId: number;
  attempt: number;
  reason: 'STALE' | 'UNKNOWN_RUN';
  /** The run's state now; null when there is no such run. */
  state: string | null;
}

/**
 * 429 TENANT_BUSY or TENANT_RATE_LIMITED of an engine: the signing tenant's signed requests on
 * that engine are at their bound (in flight and waiting, or the sustained rate). Nothing was
 * done; the same wait is in the `Retry-After` header. Clients retry later (the SDKs keep the
 * callback and send it again); other tenants are not affected.
 */
export interface TenantAdmissionRefusal extends ErrorBody {
  code: 'TENANT_BUSY' | 'TENANT_RATE_LIMITED';
  /** Seconds to wait before sending again (whole seconds, at least 1), as `Retry-After`. */
  retryAfterSeconds: number;
}

/** The wait an error answer carries for its `Retry-After` header (a TenantAdmissionRefusal's `retryAfterSeconds`), or null. */
export function retryAfterOf(body: object): number | null {
  const seconds = (body as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  return typeof seconds === 'number' && Number.isInteger(seconds) && seconds > 0 ? seconds : null;
}

const STATUS: Record<number, { code: ErrorCode; phrase: string }> = {
  400: { code: 'VALIDATION_FAILED', phrase: 'Bad Request' },
  401: { code: 'UNAUTHORIZED', phrase: 'Unauthorized' },
  403: { code: 'FORBIDDEN', phrase: 'Forbidden' },
  404: { code: 'NOT_FOUND', phrase: 'Not Found' },
  405: { code: 'NOT_FOUND', phrase: 'Method Not Allowed' },
  409: { code: 'CONFLICT', phrase: 'Conflict' },
  413: { code: 'PAYLOAD_TOO_LARGE', phrase: 'Payload Too Large' },
  415: { code: 'UNSUPPORTED_MEDIA_TYPE', phrase: 'Unsupported Media Type' },
  422: { code: 'VALIDATION_FAILED', phrase: 'Unprocessable Entity' },
  429: { code: 'RATE_LIMITED', phrase: 'Too Many Requests' },
  431: { code: 'PAYLOAD_TOO_LARGE', phrase: 'Request Header Fields Too Large' },
  500: { code: 'INTERNAL', phrase: 'Internal Server Error' },
  503: { code: 'UNAVAILABLE', phrase: 'Service Unavailable' },
};

/** The HTTP reason phrase of a status (`Error` for an unusual 4xx). */
export function reasonPhrase(status: number): string {
  return STATUS[status]?.phrase ?? (status >= 500 ? 'Internal Server Error' : 'Error');
}

/** The code a status has when nothing more specific is said (an unusual 4xx: VALIDATION_FAILED; 5xx: INTERNAL). */
export function errorCodeOf(status: number): ErrorCode {
  return STATUS[status]?.code ?? (status >= 500 ? 'INTERNAL' : 'VALIDATION_FAILED');
}

/** `field: reason; …` */
export function describeFieldErrors(errors: readonly FieldError[]): string {
  return errors.map((e) => `${e.field}: ${e.reason}`).join('; ');
}

/**
 * An ErrorBody. `code` defaults to the status's (errorCodeOf), `message` to the field errors
 * (`field: reason; …`) or the reason phrase; `extra` adds a route's documented keys.
 */
export function errorBody<Extra extends object = Record<never, never>>(
  status: number,
  options: { code?: ErrorCode; message?: string; errors?: FieldError[] } = {},
  extra?: Extra,
): ErrorBody & Extra {
  const { code = errorCodeOf(status), errors } = options;
  const message = options.message ?? (errors?.length ? describeFieldErrors(errors) : reasonPhrase(status));
  return {
    ...(extra as Extra),
    statusCode: status,
    code,
    error: reasonPhrase(status),
    message,
    ...(errors?.length ? { errors } : {}),
  };
}

/** 400 VALIDATION_FAILED naming one field and why. */
export function fieldErrorBody(field: string, reason: string): ErrorBody {
  return errorBody(400, { errors: [{ field, reason }] });
}

/**
 * Whatever an error payload carries (a string, Nest's `{ statusCode, message: string | string[],
 * error }`, an ErrorBody, a route's own keys) as an ErrorBody with `status`: its own keys are
 * kept, `statusCode` and `error` set, `code` and `message` filled in when missing.
 */
export function toErrorBody(status: number, payload: unknown): ErrorBody & Record<string, unknown> {
  if (typeof payload === 'string') return errorBody(status, { message: payload });
  const raw = payload !== null && typeof payload === 'object' ? (payload as Record<string, unknown>) : {};
  const errors = Array.isArray(raw.errors) ? (raw.errors as FieldError[]) : undefined;
  const message = Array.isArray(raw.message) ? raw.message.join('; ') : typeof raw.message === 'string' ? raw.message : undefined;
  const code = typeof raw.code === 'string' && raw.code.length > 0 ? (raw.code as ErrorCode) : undefined;
  return errorBody(status, { code, message, errors }, raw);
}

/** True for a body in this shape (e.g. an engine's answer read by an executor). */
export function isErrorBody(value: unknown): value is ErrorBody {
  const v = value as Partial<ErrorBody> | null;
  return typeof v === 'object' && v !== null && typeof v.code === 'string' && typeof v.message === 'string' && typeof v.statusCode === 'number';
}
