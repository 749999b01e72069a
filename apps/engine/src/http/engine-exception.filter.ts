import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { errorBody, retryAfterOf, toErrorBody, type ErrorBody } from '@baton/protocol';
import { databaseUnavailableMessage, DATABASE_RETRY_AFTER_S } from '@baton/persistence';
import type { IncomingMessage } from 'node:http';
import type { HttpResponse } from './http-response';

/**
 * Every error an engine answers is an ErrorBody (@baton/protocol): `{ statusCode, code, error,
 * message, errors? }`, unknown routes (404) included. Unexpected errors become a 500 INTERNAL
 * without internals (they are logged); a database that cannot be used (unreachable, or this
 * engine's pool closed as it shuts down: databaseUnavailableMessage) a 503 UNAVAILABLE saying so,
 * with Retry-After: DATABASE_RETRY_AFTER_S — the executors keep the callback or heartbeat and
 * send it again, to another engine first. Registered app-wide by EngineCoreModule; in embedded
 * mode the console's filter, which answers the same shape, comes first. An answer that says how
 * long to wait (a tenant's signed requests refused by TenantAdmission) gets it as `Retry-After`.
 */
@Catch()
export class EngineExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Engine');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<HttpResponse>();
    let body: ErrorBody;
    let retryAfter: number | null = null;
    const unavailable = exception instanceof HttpException ? null : databaseUnavailableMessage(exception);
    if (exception instanceof HttpException) {
      body = toErrorBody(exception.getStatus(), exception.getResponse());
    } else if (unavailable !== null) {
      const request = http.getRequest<IncomingMessage>();
      this.logger.warn(`${request?.method} ${request?.url}: answered 503, ${unavailable.split(';')[0]} (${(exception as Error)?.message ?? String(exception)})`);
      body = errorBody(503, { message: unavailable });
      retryAfter = DATABASE_RETRY_AFTER_S;
    } else {
      const request = http.getRequest<IncomingMessage>();
      this.logger.error(`${request?.method} ${request?.url} failed: ${(exception as Error)?.stack ?? String(exception)}`);
      body = errorBody(500, { message: 'Internal server error' });
    }
    if (response.headersSent) return;
    retryAfter ??= retryAfterOf(body);
    if (retryAfter !== null) response.setHeader('Retry-After', String(retryAfter));
    response.status(body.statusCode).json(body);
  }
}
