import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BatonApiError } from './baton-api-error';
import { BatonClient } from './baton-client';

/**
 * BatonClient and a cluster's several consoles: a request that reached no console (its connection
 * refused) goes to the next at once, and is the only unanswered one sent again without an
 * idempotency key. Real loopback servers stand in for the consoles (what a console answers is the
 * console's e2e specs'); a "down" console is a port nothing listens on.
 */
const servers: Server[] = [];
const clients: BatonClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A console stand-in answering each request (by default a POST /api/runs/batch, with a run per item); how many it got. */
async function console_(answer: (req: IncomingMessage, res: ServerResponse, body: { runs: unknown[] }) => void = ok): Promise<{ url: string; posts: number }> {
  const seen = { url: '', posts: 0 };
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      seen.posts++;
      answer(req, res, (text ? JSON.parse(text) : { runs: [] }) as { runs: unknown[] });
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  seen.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return seen;
}

function ok(_req: IncomingMessage, res: ServerResponse, body: { runs: unknown[] }): void {
  const results = body.runs.map((_, i) => ({ status: 201, run: { id: i + 1, state: 'PENDING' } }));
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results, created: results.length, existing: 0, refused: 0 }));
}

/** A loopback URL nothing listens on (a console down). */
async function downUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

function client(url: string | string[], retries = 3): BatonClient {
  const c = new BatonClient({ url, apiKey: 'bk_test', retries, maxRetryWaitMs: 50 });
  clients.push(c);
  return c;
}

describe('BatonClient with several consoles', () => {
  it('sends to the first console while it takes connections', async () => {
    const [first, second] = [await console_(), await console_()];
    const c = client([first.url, second.url]);
    expect((await c.submitBatch([{ taskId: 1 }, { taskId: 2 }])).created).toBe(2);
    expect((await c.submit({ taskId: 1 })).created).toBe(true);
    expect([first.posts, second.posts]).toEqual([2, 0]);
  });

  it("moves to the next console when one refuses the connection, a run without an idempotency key too (it reached no console), and stays there", async () => {
    const live = await console_();
    const c = client([await downUrl(), live.url]);
    expect((await c.submitBatch([{ taskId: 1 }])).results).toHaveLength(1);
    expect((await c.submit({ taskId: 1 })).run.id).toBe(1);
    expect(live.posts).toBe(2);
  });

  it("finds a task by name on the next console when one refuses the connection", async () => {
    const live = await console_((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ items: [{ id: 4, name: 'sync' }], nextCursor: null })));
    expect(await client([await downUrl(), live.url]).taskId('sync')).toBe(4);
    expect(live.posts).toBe(1);
  });

  it('throws UNREACHABLE, naming the last console tried, when no console takes the connection', async () => {
    const [first, second] = [await downUrl(), await downUrl()];
    const c = client([first, second], 1);
    await expect(c.submitBatch([{ taskId: 1 }])).rejects.toMatchObject({ status: 0, code: 'UNREACHABLE', message: expect.stringContaining(`POST ${second}/api/runs/batch`) });
  });

  it('never sends again a run without an idempotency key whose request got no answer: the console may have made it', async () => {
    const dropping = await console_((req) => req.socket.destroy());
    const other = await console_();
    const c = client([dropping.url, other.url]);
    const refusal = await c.submitBatch([{ taskId: 1 }]).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(BatonApiError);
    expect(refusal).toMatchObject({ status: 0, code: 'UNREACHABLE' });
    expect([dropping.posts, other.posts]).toEqual([1, 0]);
  });

  it('refuses no URL, or http and https mixed, naming url', () => {
    expect(() => new BatonClient({ url: [], apiKey: 'k' })).toThrow(expect.objectContaining({ errors: [{ field: 'url', reason: 'at least one console URL' }] }));
    expect(() => new BatonClient({ url: ['http://a:1', 'https://b:2'], apiKey: 'k' })).toThrow(expect.objectContaining({ errors: [{ field: 'url', reason: 'all http or all https' }] }));
  });
});

/** A console stand-in that answers each item as the console would: a non-object item is refused alone, naming its place. */
function itemwise(req: IncomingMessage, res: ServerResponse, body: { runs: unknown[] }): void {
  const results = body.runs.map((r, i) =>
    typeof r === 'object' && r !== null
      ? { status: 201, run: { id: i + 1, state: 'PENDING' } }
      : { status: 400, error: { code: 'VALIDATION_FAILED', message: `runs[${i}]: must be an object`, errors: [{ field: `runs[${i}]`, reason: 'must be an object' }] } },
  );
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results, created: 0, existing: 0, refused: 0 }));
}

describe('BatonClient and what a caller passes', () => {
  it('a submit of null is refused alone: the runs sent with it are made', async () => {
    const live = await console_(itemwise);
    const c = client(live.url);
    const outcomes = await Promise.allSettled([c.submit({ taskId: 1 }), c.submit(null as never), c.submit({ taskId: 2, idempotencyKey: 'k' })]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ status: 400, message: 'run: must be an object', errors: [{ field: 'run', reason: 'must be an object' }] });
  });

  it("names a refused run's fields, in the message too, as the submitter knows them: not by its place in the request", async () => {
    const live = await console_((_req, res, body) => {
      const results = body.runs.map(() => ({ status: 400, error: { code: 'VALIDATION_FAILED', message: 'runs[17].params.ms: must be integer', errors: [{ field: 'runs[17].params.ms', reason: 'must be integer' }] } }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }));
    });
    await expect(client(live.url).submit({ taskId: 1, params: { ms: 'x' } })).rejects.toMatchObject({ message: 'params.ms: must be integer', errors: [{ field: 'params.ms', reason: 'must be integer' }] });
  });

  it('an idempotency key of null is no key: no header on a trigger, and a request that got no answer is not sent again', async () => {
    const headers: Array<string | undefined> = [];
    const live = await console_((req, res) => {
      headers.push(req.headers['idempotency-key'] as string | undefined);
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 1, state: 'PENDING' }));
    });
    await client(live.url).trigger(1, { idempotencyKey: null as never });
    expect(headers).toEqual([undefined]);
    await expect(client(live.url).trigger(1, { idempotencyKey: 42 as never })).rejects.toMatchObject({ status: 400, errors: [{ field: 'idempotencyKey', reason: 'must be a string' }] });

    const dropping = await console_((req) => req.socket.destroy());
    await expect(client(dropping.url).emitEvent({ name: 'order.paid', idempotencyKey: null as never })).rejects.toMatchObject({ code: 'UNREACHABLE' });
    expect(dropping.posts).toBe(1);
    // With a key, the console makes one event however often it is sent: sent again.
    await expect(client(dropping.url, 2).emitEvent({ name: 'order.paid', idempotencyKey: 'paid-1' })).rejects.toMatchObject({ code: 'UNREACHABLE' });
    expect(dropping.posts).toBeGreaterThan(2);
  });
});
