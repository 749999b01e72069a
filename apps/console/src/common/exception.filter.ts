import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { errorBody, fieldErrorBody, jsonDeeperThan, jsonDepthReason, findReservedKey, MAX_BODY_DEPTH, reservedKeyReason, retryAfterOf, toErrorBody, type ErrorBody } from '@baton/protocol';
import { databaseUnavailableMessage, DATABASE_RETRY_AFTER_S, isTransientLockError, TRANSACTION_ATTEMPTS } from '@baton/persistence';
import { traceFields } from '@baton/tracing';
import type { HttpRequest as Request, HttpResponse as Response } from './http';
import { RetryLaterError } from './retry-later-error';

/** Errors raised by Express's body parser carry these (http-errors). */
interface BodyParserError {
  status?: number;
  statusCode?: number;
  type?: string;
  message: string;
  limit?: number;
  /** The text that did not parse (entity.parse.failed). */
  body?: string;
}

/** Turns a body-parser failure (malformed JSON, body too large, …) into an ErrorBody naming field `body`. */
export function bodyParserErrorBody(err: BodyParserError): ErrorBody | null {
  if (typeof err?.type !== 'string') return null;
  const status = err.status ?? err.statusCode ?? 400;
  let reason: string;
  switch (err.type) {
    case 'entity.parse.failed':
      reason = scalarJson(err.body) ?? malformedJsonReason(err.message);
      break;
    case 'entity.too.large':
      reason = `request body too large (limit ${err.limit ?? '?'} bytes)`;
      break;
    case 'encoding.unsupported':
    case 'charset.unsupported':
      reason = err.message;
      break;
    default:
      if (status >= 500) return null;
      reason = err.message;
  }
  return errorBody(status, { errors: [{ field: 'body', reason }] });
}

/** Why a body that is not JSON is refused, in the parser's words (V8's name the position: `… in JSON at position 7`). */
export function malformedJsonReason(parserMessage: string): string {
  return `malformed JSON: ${parserMessage}`;
}

/** The parser takes objects and arrays only: a body that is JSON all the same (`"hello"`, `null`, `3`) is told so, not called malformed. */
function scalarJson(text: string | undefined): string | null {
  if (text === undefined) return null;
  try {
    const value: unknown = JSON.parse(text);
    return `must be a JSON object (this is JSON ${value === null ? 'null' : `of type ${typeof value}`})`;
  } catch {
    return null;
  }
}

/** Whatever an HttpException carries (ours, Nest's own, a string) as an ErrorBody. */
export function httpExceptionBody(exception: HttpException): ErrorBody {
  return toErrorBody(exception.getStatus(), exception.getResponse());
}

/**
 * A browser's page load (GET or HEAD, Accept: text/html) of a path outside the API: what the web
 * console's own not-found page should answer, not a JSON ErrorBody.
 */
export function isPageLoad(request: Request): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const path = request.url.split('?')[0];
  if (/^\/(?:api|socket\.io|assets|baton)(?:\/|$)/.test(path)) return false;
  const accept = request.headers.accept;
  return (Array.isArray(accept) ? accept.join(',') : (accept ?? '')).includes('text/html');
}

/**
 * Every error the console answers is an ErrorBody (@baton/protocol): `{ statusCode, code,
 * error, message, errors? }`, unknown routes (404) included. Unexpected errors become a 500
 * INTERNAL without internals (they are logged); a transaction that met lock conflicts in every
 * attempt a 503 UNAVAILABLE with Retry-After: 1 (nothing was written; sending again is safe); a
 * database that cannot be used (unreachable, its pool closed: databaseUnavailableMessage) a 503
 * UNAVAILABLE saying so, with Retry-After: DATABASE_RETRY_AFTER_S.
 */
@Catch()
export class ConsoleExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Console');

  /** `spaPage`: the web console's index.html, when its build is served: an unknown page of a browser gets it (404), and the app shows its not-found page. */
  constructor(private readonly spaPage: (() => string) | null = null) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<Response>();
    const request = http.getRequest<Request>();
    if (this.spaPage && exception instanceof HttpException && exception.getStatus() === 404 && isPageLoad(request) && !response.headersSent) {
      response.status(404).type('html').setHeader('cache-control', 'no-cache');
      response.send(this.spaPage());
      return;
    }
    let body: ErrorBody | null = exception instanceof HttpException ? httpExceptionBody(exception) : bodyParserErrorBody(exception as BodyParserError);
    let retryAfter: number | null = null;
    if (!body && isTransientLockError(exception)) {
      // Deadlocks or lock waits every time a transaction was tried (inTransaction): rolled back,
      // nothing written. The caller's request is sound; it may send it again at once.
      this.logger.warn(`${request?.method} ${request?.url}: lock conflicts in all ${TRANSACTION_ATTEMPTS} attempts, answered 503`, traceFields(request?.headers?.traceparent));
      body = errorBody(503, { message: `Concurrent writes to the same rows conflicted in all ${TRANSACTION_ATTEMPTS} attempts; nothing was written: send it again` });
      retryAfter = 1;
    }
    const unavailable = body ? null : databaseUnavailableMessage(exception);
    if (unavailable !== null) {
      // The database is down, failing over, or this process is closing its pool: the request is
      // sound and worth sending again shortly (a 500 would say it went wrong by itself).
      this.logger.warn(`${request?.method} ${request?.url}: answered 503, ${unavailable.split(';')[0]} (${(exception as Error)?.message ?? String(exception)})`, traceFields(request?.headers?.traceparent));
      body = errorBody(503, { message: unavailable });
      retryAfter = DATABASE_RETRY_AFTER_S;
    }
    if (!body) {
      // A caller's traceparent (a trigger or a submission it traced) joins the line to its trace.
      this.logger.error(`${request?.method} ${request?.url} failed: ${(exception as Error)?.stack ?? String(exception)}`, traceFields(request?.headers?.traceparent));
      body = errorBody(500, { message: 'Internal server error' });
    }
    if (response.headersSent) return;
    // The engine's 429s carry their wait in the body (embedded mode: this filter answers them too).
    retryAfter ??= exception instanceof RetryLaterError ? exception.retryAfterSeconds : retryAfterOf(body);
    if (retryAfter !== null) response.setHeader('Retry-After', String(retryAfter));
    response.status(body.statusCode).json(body);
  }
}

/**
 * Express error middleware placed right after the JSON body parser, so malformed or oversized
 * bodies are answered as ErrorBody before any routing happens.
 */
export function bodyParserErrorHandler(
  err: unknown,
  _req: Request,
  res: Response,
  next: (err?: unknown) => void,
): void {
  const body = bodyParserErrorBody(err as BodyParserError);
  if (!body) return next(err);
  res.status(body.statusCode).json(body);
}

/**
 * Express middleware placed after the body parsers: a request to the console's API (`/api/…`)
 * that has a body no parser took (its Content-Type is not JSON) is answered 415 naming
 * `content-type`, rather than read as an empty body whose first missing field is then named.
 * Inbound webhooks take any content type (their parser runs first).
 */
export function unparsedBodyGuard(req: Request & { readableEnded?: boolean }, res: Response, next: (err?: unknown) => void): void {
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  // A parser that took the body read its stream to the end.
  if (req.readableEnded || !hasBody || !(req.url ?? '').startsWith('/api/')) return next();
  const type = req.headers['content-type'];
  res.status(415).json(errorBody(415, { errors: [{ field: 'content-type', reason: `must be application/json (got ${type ? `"${String(type).slice(0, 100)}"` : 'none'})` }] }));
}

/**
 * Express middleware placed after the JSON body parser: a body nested deeper than
 * MAX_BODY_DEPTH (512) is answered 400 naming field `body` before the validation pipe, whose
 * recursion would overflow the stack on it (a 500 even on the unauthenticated login); a body
 * holding a key the validation would drop (`__proto__`, `constructor`, `prototype`: RESERVED_JSON_KEYS)
 * is answered 400 naming the key's place, rather than stored without it.
 */
export function bodyDepthGuard(req: Request & { body?: unknown }, res: Response, next: (err?: unknown) => void): void {
  if (jsonDeeperThan(req.body, MAX_BODY_DEPTH)) return void res.status(400).json(fieldErrorBody('body', jsonDepthReason(MAX_BODY_DEPTH)));
  const reserved = Buffer.isBuffer(req.body) ? null : findReservedKey(req.body);
  if (reserved === null) return next();
  res.status(400).json(fieldErrorBody(reserved.path, reservedKeyReason(reserved.key)));
}
