import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { HttpRequest as Request, HttpResponse as Response } from './http';
import { ApiErrorBody, FieldError, reasonPhrase } from './api-error';

/** Errors raised by Express's body parser carry these (http-errors). */
interface BodyParserError {
  status?: number;
  statusCode?: number;
  type?: string;
  message: string;
  limit?: number;
}

/** Turns a body-parser failure (malformed JSON, body too large, …) into the console's error shape. */
export function bodyParserErrorBody(err: BodyParserError): ApiErrorBody | null {
  if (typeof err?.type !== 'string') return null;
  const status = err.status ?? err.statusCode ?? 400;
  let reason: string;
  switch (err.type) {
    case 'entity.parse.failed':
      reason = `malformed JSON: ${err.message}`;
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
  const errors: FieldError[] = [{ field: 'body', reason }];
  return { statusCode: status, error: reasonPhrase(status), message: `body: ${reason}`, errors };
}

/** Normalises whatever an HttpException carries into `{ statusCode, error, message, errors? }`. */
export function httpExceptionBody(exception: HttpException): ApiErrorBody {
  const status = exception.getStatus();
  const response = exception.getResponse();
  if (typeof response === 'string') return { statusCode: status, error: reasonPhrase(status), message: response };
  const raw = response as Record<string, unknown>;
  const message = Array.isArray(raw.message)
    ? raw.message.join('; ')
    : typeof raw.message === 'string'
      ? raw.message
      : exception.message;
  return {
    ...raw,
    statusCode: status,
    error: typeof raw.error === 'string' ? raw.error : reasonPhrase(status),
    message,
  };
}

/**
 * Every error the console answers has one shape: `{ statusCode, error, message, errors? }`.
 * Unexpected errors become a 500 without internals (they are logged).
 */
@Catch()
export class ConsoleExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Console');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<Response>();
    const request = http.getRequest<Request>();
    let body: ApiErrorBody;
    if (exception instanceof HttpException) {
      body = httpExceptionBody(exception);
    } else {
      const parsed = bodyParserErrorBody(exception as BodyParserError);
      if (parsed) {
        body = parsed;
      } else {
        this.logger.error(
          `${request?.method} ${request?.url} failed: ${(exception as Error)?.stack ?? String(exception)}`,
        );
        body = { statusCode: 500, error: reasonPhrase(500), message: 'Internal server error' };
      }
    }
    if (response.headersSent) return;
    response.status(body.statusCode).json(body);
  }
}

/**
 * Express error middleware placed right after the JSON body parser, so malformed or oversized
 * bodies are answered in the console's shape before any routing happens.
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
