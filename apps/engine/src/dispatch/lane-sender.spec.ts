import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { systemClock } from '@baton/domain';
import { verify, type DispatchRequest } from '@baton/protocol';
import { ExecutorClient, type SigningTenant } from '../executors/executor-client';
import { XxlJobClient } from '../executors/xxl-job-client';
import type { ExecutorRegistry } from '../executors/executor-registry';
import { testConfig } from '../testing/engine-test-kit';
import { noClusterAddresses } from '../testing/no-cluster-addresses';
import { NO_TENANT_REREAD } from '../testing/no-tenant-reread';
import { LaneSender } from './lane-sender';

/**
 * An executor in a process of its own, so that it takes and timestamps a request while this
 * thread is kept busy: it prints `PORT <n>` once listening, then `ARRIVED <epoch ms> <request, base64>`
 * for each request (its headers, body and the client's port: which connection carried it), and
 * answers 202.
 */
const EXECUTOR = `
const http = require('node:http');
http.createServer((req, res) => {
  const arrived = Date.now();
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    console.log('ARRIVED ' + arrived + ' ' + Buffer.from(JSON.stringify({ headers: req.headers, body, socket: req.socket.remotePort })).toString('base64'));
    const { runId, attempt } = JSON.parse(body);
    res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ accepted: true, runId, attempt, credit: 5 }));
  });
}).listen(0, '127.0.0.1', function () { console.log('PORT ' + this.address().port); });
`;

const TENANT: SigningTenant = { id: 'acme', executorSecret: 'lane-secret', executorSecretVersion: 1, previousExecutorSecret: null, previousSecretExpiresAt: null, executorNetworks: null };

const request = (runId: number): DispatchRequest => ({
  runId,
  attempt: 1,
  tenantId: 'acme',
  taskId: 1,
  taskName: 'lone',
  handler: 'noop',
  params: null,
  scheduledAt: Date.now(),
  deadline: Date.now() + 60_000,
  callbackUrls: ['http://127.0.0.1:1'],
});

/** Blocks the main loop `ms` (the engine working a burst); returns when it is free again. */
function busyFor(ms: number): number {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // the engine's main loop working a burst
  }
  return Date.now();
}

/** The condition decides; the timeout only bounds a hang (vi.waitFor's default, 1 s, is a guess a loaded machine can miss). */
const SLOW_MACHINE = { timeout: 10_000 };

describe('LaneSender', () => {
  let executor: ChildProcess;
  let url: string;
  const arrivals: Array<{ at: number; headers: Record<string, string>; body: string; socket: number }> = [];
  let lane: LaneSender;

  beforeAll(async () => {
    executor = spawn(process.execPath, ['-e', EXECUTOR], { stdio: ['ignore', 'pipe', 'inherit'] });
    url = await new Promise<string>((resolve) => {
      createInterface({ input: executor.stdout! }).on('line', (line) => {
        const [kind, a, b] = line.split(' ');
        if (kind === 'PORT') resolve(`http://127.0.0.1:${a}`);
        if (kind === 'ARRIVED') arrivals.push({ at: Number(a), ...(JSON.parse(Buffer.from(b, 'base64').toString()) as { headers: Record<string, string>; body: string; socket: number }) });
      });
    });
  });
  afterAll(() => {
    executor.kill();
  });
  afterEach(async () => {
    await lane?.onApplicationShutdown();
    arrivals.length = 0;
  });

  function make(): LaneSender {
    const registry = { secretVersionOf: () => null } as unknown as ExecutorRegistry;
    const config = testConfig({ dispatchTimeoutMs: 2_000 });
    lane = new LaneSender(config, systemClock, new ExecutorClient(config, systemClock, registry, NO_TENANT_REREAD, new XxlJobClient(config, noClusterAddresses()), noClusterAddresses()), noClusterAddresses());
    return lane;
  }

  it("sends at the run's instant — never before — while the main loop is busy, signed as any dispatch", async () => {
    const sender = make();
    await sender.send(url, TENANT, request(1), Date.now() + 30); // the thread started and connected
    await vi.waitFor(() => expect(arrivals).toHaveLength(1), SLOW_MACHINE); // the executor's line for it
    arrivals.length = 0;
    const posted = vi.spyOn(Worker.prototype, 'postMessage');
    const sendAt = Date.now() + 80;
    const run = request(2);
    const result = sender.send(url, TENANT, run, sendAt);
    await vi.waitFor(() => expect(posted).toHaveBeenCalled(), { ...SLOW_MACHINE, interval: 1 }); // the request reached the thread
    posted.mockRestore();
    const freeAt = busyFor(400);
    const sent = await result;
    expect(sent?.answer).toMatchObject({ kind: 'ACCEPTED', status: 202, credit: 5 });
    await vi.waitFor(() => expect(arrivals).toHaveLength(1), SLOW_MACHINE); // the executor's line
    expect(arrivals[0].at).toBeGreaterThanOrEqual(sendAt);
    expect(arrivals[0].at, 'on time, not when the main loop was free again').toBeLessThan(freeAt);
    expect(sent!.leftAt).toBeGreaterThanOrEqual(sendAt);
    expect(sent!.leftAt).toBeLessThan(freeAt);
    const { headers, body } = arrivals[0];
    // Its time left until its deadline counted from the instant it leaves, not from when it was signed.
    expect(JSON.parse(body)).toMatchObject({ runId: 2, tenantId: 'acme', deadlineInMs: run.deadline - sendAt });
    expect(verify('lane-secret', headers, 'POST', '/baton/runs', body, Date.now())).toEqual({ ok: true });
  });

  it("keeps each tenant's connections its own: a socket opened for one tenant never carries another's request", async () => {
    const sender = make();
    const other: SigningTenant = { ...TENANT, id: 'globex', executorSecret: 'globex-secret' };
    for (const [tenant, runId] of [[TENANT, 6], [TENANT, 7], [other, 8]] as const) {
      const sent = await sender.send(url, tenant, { ...request(runId), tenantId: tenant.id }, Date.now() + 10);
      expect(sent?.answer.kind).toBe('ACCEPTED');
    }
    await vi.waitFor(() => expect(arrivals).toHaveLength(3), SLOW_MACHINE);
    const [a1, a2, b] = arrivals.map((a) => a.socket);
    expect(a2, "the tenant's kept-alive socket").toBe(a1);
    expect(b, "another tenant's socket").not.toBe(a1);
  });

  it("leaves a run whose instant has come to the usual way, and one whose executor the tenant's networks refuse (nothing sent)", async () => {
    const sender = make();
    const posted = vi.spyOn(Worker.prototype, 'postMessage');
    try {
      expect(await sender.send(url, TENANT, request(3), Date.now())).toBeNull();
      expect(await sender.send(url, { ...TENANT, executorNetworks: ['10.0.0.0/8'] }, request(4), Date.now() + 50)).toBeNull();
      expect(posted).not.toHaveBeenCalled(); // nothing handed to the thread to send
    } finally {
      posted.mockRestore();
    }
    expect(arrivals).toHaveLength(0);
  });

  it('answers UNKNOWN for a request the executor never answered (it may have started it)', async () => {
    const sender = make();
    const silent = spawn(process.execPath, ['-e', "require('node:net').createServer(() => {}).listen(0, '127.0.0.1', function () { console.log(this.address().port); })"], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const port = await new Promise<string>((resolve) => createInterface({ input: silent.stdout! }).once('line', resolve));
      const sent = await sender.send(`http://127.0.0.1:${port}`, TENANT, request(5), Date.now() + 20);
      expect(sent?.answer.kind).toBe('UNKNOWN');
    } finally {
      silent.kill();
    }
  });
});
