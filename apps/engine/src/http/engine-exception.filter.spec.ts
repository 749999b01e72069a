import { ArgumentsHost, HttpException } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { describe, expect, it, vi } from 'vitest';
import { errorBody } from '@baton/protocol';
import { EngineExceptionFilter } from './engine-exception.filter';

function hostFor() {
  const response = { headersSent: false, status: vi.fn(), json: vi.fn(), setHeader: vi.fn() };
  response.status.mockReturnValue(response);
  const host = { switchToHttp: () => ({ getResponse: () => response, getRequest: () => ({ method: 'POST', url: '/baton/callbacks' }) }) } as unknown as ArgumentsHost;
  return { host, response };
}

/** The filter, its log lines kept. */
function quietFilter() {
  const filter = new EngineExceptionFilter();
  const logger = (filter as unknown as { logger: { warn: () => void; error: () => void } }).logger;
  return { filter, warned: vi.spyOn(logger, 'warn').mockImplementation(() => undefined), failed: vi.spyOn(logger, 'error').mockImplementation(() => undefined) };
}

describe('engine error answers', () => {
  it('answers a callback or heartbeat that met the database unreachable 503 with Retry-After and the cause (executors send it again), not 500', () => {
    const { host, response } = hostFor();
    const { filter, warned, failed } = quietFilter();
    const lost = Object.assign(new Error('Connection lost: The server closed the connection.'), { code: 'PROTOCOL_CONNECTION_LOST', fatal: true });
    filter.catch(new QueryFailedError('SELECT 1', [], lost), host);
    expect(response.status).toHaveBeenCalledWith(503);
    expect(response.setHeader).toHaveBeenCalledWith('Retry-After', '5');
    expect(response.json).toHaveBeenCalledWith({ statusCode: 503, code: 'UNAVAILABLE', error: 'Service Unavailable', message: 'the database is unreachable; try again shortly' });
    expect(warned).toHaveBeenCalledTimes(1);
    expect(failed).not.toHaveBeenCalled();
  });

  it('answers a request met by the pool this engine closed as it shuts down 503, naming that', () => {
    const { host, response } = hostFor();
    quietFilter().filter.catch(new Error('Pool is closed.'), host);
    expect(response.status).toHaveBeenCalledWith(503);
    expect(response.json).toHaveBeenCalledWith(expect.objectContaining({ code: 'UNAVAILABLE', message: expect.stringMatching(/shutting down/) }));
  });

  it('hides other unexpected errors behind a 500, and keeps a refusal with its wait', () => {
    const unexpected = hostFor();
    const { filter, failed } = quietFilter();
    filter.catch(new Error('SELECT secret FROM somewhere failed'), unexpected.host);
    expect(unexpected.response.status).toHaveBeenCalledWith(500);
    expect(unexpected.response.json).toHaveBeenCalledWith({ statusCode: 500, code: 'INTERNAL', error: 'Internal Server Error', message: 'Internal server error' });
    expect(unexpected.response.setHeader).not.toHaveBeenCalled();
    expect(failed).toHaveBeenCalledTimes(1);

    const refused = hostFor();
    filter.catch(new HttpException(errorBody(429, { code: 'TENANT_BUSY', message: 'busy' }, { retryAfterSeconds: 2 }), 429), refused.host);
    expect(refused.response.status).toHaveBeenCalledWith(429);
    expect(refused.response.setHeader).toHaveBeenCalledWith('Retry-After', '2');
  });
});
