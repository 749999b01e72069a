import { ArgumentsHost, BadRequestException, HttpException, Logger, NotFoundException } from '@nestjs/common';
import { describe, expect, it, vi } from 'vitest';
import { errorBody } from '@baton/protocol';
import { badRequest, conflict } from './api-error';
import { bodyParserErrorBody, ConsoleExceptionFilter, httpExceptionBody } from './exception.filter';

function hostFor(headers: Record<string, string> = {}) {
  const response = { headersSent: false, status: vi.fn(), json: vi.fn(), setHeader: vi.fn() };
  response.status.mockReturnValue(response);
  const host = {
    switchToHttp: () => ({ getResponse: () => response, getRequest: () => ({ method: 'GET', url: '/x', headers }) }),
  } as unknown as ArgumentsHost;
  return { host, response };
}

describe('console error shape', () => {
  it('keeps the fields of an ApiError', () => {
    expect(httpExceptionBody(badRequest([{ field: 'name', reason: 'is required' }]))).toEqual({
      statusCode: 400,
      code: 'VALIDATION_FAILED',
      error: 'Bad Request',
      message: 'name: is required',
      errors: [{ field: 'name', reason: 'is required' }],
    });
  });

  it("normalises Nest's own exceptions", () => {
    expect(httpExceptionBody(new NotFoundException('Cannot GET /nope'))).toEqual({
      statusCode: 404,
      code: 'NOT_FOUND',
      error: 'Not Found',
      message: 'Cannot GET /nope',
    });
    expect(httpExceptionBody(new BadRequestException(['a is bad', 'b is bad'])).message).toBe('a is bad; b is bad');
    expect(httpExceptionBody(new HttpException('Slow down', 429))).toEqual({ statusCode: 429, code: 'RATE_LIMITED', error: 'Too Many Requests', message: 'Slow down' });
  });

  it('keeps a specific code and the documented keys of a route', () => {
    expect(httpExceptionBody(conflict('Dependency cycle: a → a', undefined, { code: 'DEPENDENCY_CYCLE', cycle: ['a', 'a'] }))).toEqual({
      statusCode: 409,
      code: 'DEPENDENCY_CYCLE',
      error: 'Conflict',
      message: 'Dependency cycle: a → a',
      cycle: ['a', 'a'],
    });
  });

  it('turns body-parser failures into field "body" errors', () => {
    expect(bodyParserErrorBody({ type: 'entity.parse.failed', status: 400, message: 'Unexpected token }' })).toEqual({
      statusCode: 400,
      code: 'VALIDATION_FAILED',
      error: 'Bad Request',
      message: 'body: malformed JSON: Unexpected token }',
      errors: [{ field: 'body', reason: 'malformed JSON: Unexpected token }' }],
    });
    expect(bodyParserErrorBody({ type: 'entity.too.large', status: 413, message: 'too large', limit: 1024 })).toMatchObject({
      statusCode: 413,
      code: 'PAYLOAD_TOO_LARGE',
      error: 'Payload Too Large',
      errors: [{ field: 'body', reason: 'request body too large (limit 1024 bytes)' }],
    });
    expect(bodyParserErrorBody(new Error('plain') as never)).toBeNull();
  });

  it("sends an engine's 429 (embedded mode: this filter answers the engine's routes) with its Retry-After", () => {
    const { host, response } = hostFor();
    const refusal = errorBody(429, { code: 'TENANT_RATE_LIMITED', message: 'slow down' }, { retryAfterSeconds: 3 });
    new ConsoleExceptionFilter().catch(new HttpException(refusal, 429), host);
    expect(response.setHeader).toHaveBeenCalledWith('Retry-After', '3');
    expect(response.status).toHaveBeenCalledWith(429);
    expect(response.json).toHaveBeenCalledWith(expect.objectContaining({ code: 'TENANT_RATE_LIMITED', retryAfterSeconds: 3 }));
  });

  it('hides unexpected errors behind a 500', () => {
    const { host, response } = hostFor();
    const filter = new ConsoleExceptionFilter();
    vi.spyOn((filter as unknown as { logger: { error: () => void } }).logger, 'error').mockImplementation(() => undefined);
    filter.catch(new Error('SELECT secret FROM somewhere failed'), host);
    expect(response.status).toHaveBeenCalledWith(500);
    expect(response.json).toHaveBeenCalledWith({ statusCode: 500, code: 'INTERNAL', error: 'Internal Server Error', message: 'Internal server error' });
  });

  it('answers a transaction that met lock conflicts in every attempt 503 with Retry-After, not 500: nothing was written, sending again is safe', () => {
    const { host, response } = hostFor();
    const filter = new ConsoleExceptionFilter();
    vi.spyOn((filter as unknown as { logger: { warn: () => void } }).logger, 'warn').mockImplementation(() => undefined);
    const deadlock = Object.assign(new Error('QueryFailedError: Deadlock found when trying to get lock; try restarting transaction'), { driverError: { code: 'ER_LOCK_DEADLOCK', errno: 1213 } });
    filter.catch(deadlock, host);
    expect(response.status).toHaveBeenCalledWith(503);
    expect(response.setHeader).toHaveBeenCalledWith('Retry-After', '1');
    expect(response.json).toHaveBeenCalledWith(expect.objectContaining({ statusCode: 503, code: 'UNAVAILABLE', message: expect.stringMatching(/nothing was written: send it again/) }));
  });

  it('answers a request that met the database unreachable 503 with Retry-After and the cause, not 500; warns one line, no stack', () => {
    const { host, response } = hostFor();
    const filter = new ConsoleExceptionFilter();
    const logger = (filter as unknown as { logger: { warn: (message: string) => void; error: (message: string) => void } }).logger;
    const warned = vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const failed = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    filter.catch(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3306'), { code: 'ECONNREFUSED', errno: -111, fatal: true }), host);
    expect(response.status).toHaveBeenCalledWith(503);
    expect(response.setHeader).toHaveBeenCalledWith('Retry-After', '5');
    expect(response.json).toHaveBeenCalledWith({ statusCode: 503, code: 'UNAVAILABLE', error: 'Service Unavailable', message: 'the database is unreachable; try again shortly' });
    expect(warned.mock.calls.map((c) => c[0])).toEqual(['GET /x: answered 503, the database is unreachable (connect ECONNREFUSED 127.0.0.1:3306)']);
    expect(failed).not.toHaveBeenCalled();
  });

  it("logs an unexpected error with the caller's trace context (traceparent), none without one", () => {
    const logged = vi.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      new ConsoleExceptionFilter().catch(new Error('boom'), hostFor({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' }).host);
      new ConsoleExceptionFilter().catch(new Error('boom'), hostFor().host);
      expect(logged.mock.calls.map((c) => c[1])).toEqual([{ trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7' }, {}]);
    } finally {
      logged.mockRestore();
    }
  });
});
