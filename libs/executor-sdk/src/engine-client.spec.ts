import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAnswer, EngineClient } from './engine-client';

describe('EngineClient.order', () => {
  let up: Server;
  let upUrl: string;
  let status = 200;
  beforeAll(async () => {
    up = createServer((_req, res) => res.writeHead(status, { 'content-type': 'application/json' }).end('{}'));
    await new Promise<void>((resolve) => up.listen(0, '127.0.0.1', resolve));
    upUrl = `http://127.0.0.1:${(up.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => up.close(() => resolve())));

  it('keeps the given order (a dispatch names its own engine first) and drops duplicates', () => {
    const client = new EngineClient('t', 's', 1_000);
    expect(client.order(['http://b', 'http://a', 'http://b'])).toEqual(['http://b', 'http://a']);
  });

  it('tries an engine that gave no answer after the others, until it answers again', async () => {
    const client = new EngineClient('t', 's', 1_000);
    const dead = 'http://127.0.0.1:1';
    expect((await client.post(dead, '/x', {})).status).toBe(0);
    expect(client.order([dead, upUrl])).toEqual([upUrl, dead]);
    status = 503;
    expect((await client.post(upUrl, '/x', {})).status).toBe(503);
    expect(client.order([upUrl, 'http://c'])).toEqual(['http://c', upUrl]);
    status = 200;
    expect((await client.post(upUrl, '/x', {})).status).toBe(200);
    expect(client.order([upUrl, 'http://c'])).toEqual([upUrl, 'http://c']);
  });
});

describe('describeAnswer', () => {
  it("names the status, and the code and message of an engine's ErrorBody", () => {
    const refused = { statusCode: 400, code: 'VALIDATION_FAILED', error: 'Bad Request', message: 'runId: a positive integer', errors: [{ field: 'runId', reason: 'a positive integer' }] };
    expect(describeAnswer({ url: 'http://e1', status: 400, body: refused })).toBe('http://e1: HTTP 400 VALIDATION_FAILED: runId: a positive integer');
    expect(describeAnswer({ url: 'http://e1', status: 502, body: '<html>bad gateway</html>' })).toBe('http://e1: HTTP 502');
    expect(describeAnswer({ url: 'http://e1', status: 0, body: null, error: 'ECONNREFUSED' })).toBe('http://e1: ECONNREFUSED');
  });
});
