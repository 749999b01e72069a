import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PATHS, type RunCallback } from '@baton/protocol';
import { CallbackBatches } from './callback-batches';
import { EngineClient } from './engine-client';

describe('CallbackBatches', () => {
  let server: Server;
  let url: string;
  /** Requests received: path and the run ids in them. */
  let requests: Array<{ path: string; runIds: number[] }>;
  /** How the fake engine answers a batch request (status; 200 answers each callback by its runId). */
  let batchStatus: number;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        const body = JSON.parse(text) as { callbacks?: RunCallback[] } & RunCallback;
        const reply = (status: number, payload: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
        if (req.url === PATHS.callbackBatch) {
          requests.push({ path: req.url, runIds: body.callbacks!.map((c) => c.runId) });
          if (batchStatus !== 200) return reply(batchStatus, { message: 'no' });
          return reply(200, { results: body.callbacks!.map((c) => ({ runId: c.runId, attempt: c.attempt, status: c.runId % 2 ? 200 : 409, body: { runId: c.runId } })) });
        }
        requests.push({ path: req.url!, runIds: [body.runId] });
        reply(200, { runId: body.runId, alone: true });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    requests = [];
    batchStatus = 200;
  });

  const cb = (runId: number, more: Partial<RunCallback> = {}): RunCallback => ({ runId, attempt: 1, tenantId: 't', outcome: 'SUCCEEDED', ...more });
  const batches = () => new CallbackBatches(new EngineClient('t', 's', 2_000), 32);

  it('sends callbacks ready together as one batch and gives each its own answer; a lone one uses the plain route', async () => {
    const b = batches();
    const answers = await Promise.all([1, 2, 3].map((id) => b.send(url, cb(id))));
    expect(requests).toEqual([{ path: PATHS.callbackBatch, runIds: [1, 2, 3] }]);
    expect(answers.map((a) => [a.status, a.body])).toEqual([
      [200, { runId: 1 }],
      [409, { runId: 2 }],
      [200, { runId: 3 }],
    ]);
    expect((await b.send(url, cb(4))).body).toEqual({ runId: 4, alone: true });
  });

  it('an engine without the batch route (404) gets them one by one, from then on too', async () => {
    batchStatus = 404;
    const b = batches();
    const answers = await Promise.all([1, 2].map((id) => b.send(url, cb(id))));
    expect(answers.map((a) => a.body)).toEqual([
      { runId: 1, alone: true },
      { runId: 2, alone: true },
    ]);
    await Promise.all([3, 4].map((id) => b.send(url, cb(id))));
    expect(requests.map((r) => r.path)).toEqual([PATHS.callbackBatch, PATHS.callback, PATHS.callback, PATHS.callback, PATHS.callback]);
  });

  it('a batch refused for its shape (400) is sent one by one; one the engine could not take (503) is every callback’s answer', async () => {
    batchStatus = 400;
    const b = batches();
    expect((await Promise.all([1, 2].map((id) => b.send(url, cb(id))))).map((a) => a.status)).toEqual([200, 200]);
    batchStatus = 503;
    expect((await Promise.all([5, 6].map((id) => b.send(url, cb(id))))).map((a) => a.status)).toEqual([503, 503]);
  });

  it('a large callback goes alone, the others still together', async () => {
    const b = batches();
    await Promise.all([b.send(url, cb(1)), b.send(url, cb(2, { result: 'x'.repeat(70_000) })), b.send(url, cb(3))]);
    expect(requests.map((r) => r.runIds).sort()).toEqual([[1, 3], [2]]);
  });
});
