import { spawn, type ChildProcess } from 'node:child_process';
import { systemClock } from '@baton/domain';
import type { DispatchRequest } from '@baton/protocol';
import type { EngineConfig } from '../../apps/engine/src/config/engine-config';
import { ExecutorClient, type SigningTenant } from '../../apps/engine/src/executors/executor-client';
import { XxlJobClient } from '../../apps/engine/src/executors/xxl-job-client';
import type { ExecutorRegistry } from '../../apps/engine/src/executors/executor-registry';
import { noClusterAddresses } from '../../apps/engine/src/testing/no-cluster-addresses';
import { NO_TENANT_REREAD } from '../../apps/engine/src/testing/no-tenant-reread';
import { machine, writeResult } from '../support/infra';
import { option, type Scenario } from '../support/scenario';
import { table } from '../support/table';

/**
 * An executor that answers every dispatch at once, as the SDK does (202 and a DispatchAck), in a
 * process of its own so that its work does not share the measured event loop.
 */
const RECEIVER = `
const server = require('node:http').createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const request = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const ack = ({ runId, attempt }) => ({ accepted: true, runId, attempt, credit: 1000, creditSeq: runId });
    const batch = req.url.endsWith('/batch');
    const body = JSON.stringify(batch ? { results: request.runs.map((r) => ({ runId: r.runId, attempt: r.attempt, status: 202, body: ack(r) })) } : ack(request));
    res.writeHead(batch ? 200 : 202, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.send(server.address().port));
`;

/**
 * The engine's executor client alone (ExecutorClient.dispatch: signing, the outbound policy, the
 * HTTP call, reading the ack) against a local executor that answers at once: `dispatches`
 * dispatches, `inflight` at a time over keep-alive connections, `rounds` times. Options:
 * --dispatches=20000 --inflight=64 --rounds=3 --tenants=1 (pools the calls are spread over),
 * --host=127.0.0.1 (a name such as localhost goes through the checking lookup on each new
 * connection), --batch=1 (runs per POST; more: dispatchBatch, as the engine sends runs due together).
 */
export const executorClient: Scenario = {
  name: 'executor-client',
  description: 'engine → executor dispatch throughput of the executor client alone (keep-alive, local executor answering at once)',
  standalone: true,
  quickSet: false,
  async run({ args, log }) {
    const dispatches = Number(option(args, 'dispatches') ?? 20_000);
    const inflight = Number(option(args, 'inflight') ?? 64);
    const rounds = Number(option(args, 'rounds') ?? 3);
    const tenantCount = Number(option(args, 'tenants') ?? 1);
    const host = option(args, 'host') ?? '127.0.0.1';
    const batch = Number(option(args, 'batch') ?? 1);
    const receiver = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const rows: Array<Array<string | number>> = [];
    try {
      const port = await new Promise<number>((resolve, reject) => receiver.once('message', (p) => resolve(Number(p))).once('exit', reject));
      const url = `http://${host}:${port}`;
      const config = { slots: inflight, dispatchTimeoutMs: 10_000 } as EngineConfig;
      const registry = { secretVersionOf: () => null } as unknown as ExecutorRegistry;
      const tenants: SigningTenant[] = Array.from({ length: tenantCount }, (_, i) => ({
        id: `bench-${i}`,
        executorSecret: 'bench-secret',
        executorSecretVersion: 1,
        previousExecutorSecret: null,
        previousSecretExpiresAt: null,
        executorNetworks: null,
      }));
      for (let round = 1; round <= rounds; round++) {
        const client = new ExecutorClient(config, systemClock, registry, NO_TENANT_REREAD, new XxlJobClient(config, noClusterAddresses()), noClusterAddresses());
        try {
          // A few hundred first, unmeasured: the connections opened and the code paths warm.
          await drive(client, url, tenants, 500, inflight, batch);
          const since = performance.now();
          const accepted = await drive(client, url, tenants, dispatches, inflight, batch);
          const seconds = (performance.now() - since) / 1000;
          const perSecond = dispatches / seconds;
          log(`executor-client: round ${round}: ${dispatches} runs (${batch} per POST) in ${seconds.toFixed(2)} s, ${perSecond.toFixed(0)}/s, ${accepted} accepted`);
          rows.push([round, dispatches, batch, inflight, tenantCount, seconds, Math.round(perSecond), accepted]);
        } finally {
          client.onApplicationShutdown();
        }
      }
    } finally {
      await stop(receiver);
    }
    const rates = rows.map((r) => Number(r[6])).sort((a, b) => a - b);
    const median = rates[Math.floor(rates.length / 2)];
    console.log(`\nExecutor client, ${host}\n${table(['round', 'runs', 'per POST', 'POSTs in flight', 'tenants', 's', 'runs/s', 'accepted'], rows)}\nmedian ${median} runs/s`);
    writeResult('executor-client.json', { machine: machine(), host, dispatches, batch, inflight, tenants: tenantCount, rounds: rows, medianPerSecond: median });
    return [[`executor-client ${dispatches} runs, ${batch} per POST, ${inflight} in flight`, `median ${median} runs/s over ${rows.length} rounds`]];
  },
};

/** `count` runs, `batch` per POST and `inflight` POSTs at a time, spread over the tenants in turn; how many were accepted. */
async function drive(client: ExecutorClient, url: string, tenants: SigningTenant[], count: number, inflight: number, batch: number): Promise<number> {
  let next = 0;
  let accepted = 0;
  const worker = async () => {
    while (next < count) {
      const tenant = tenants[next % tenants.length];
      const runs = Array.from({ length: Math.min(batch, count - next) }, () => request(++next, tenant.id));
      const answers = batch === 1 ? [await client.dispatch(url, tenant, runs[0])] : await client.dispatchBatch(url, tenant, runs);
      accepted += (answers ?? []).filter((a) => a.kind === 'ACCEPTED').length;
    }
  };
  await Promise.all(Array.from({ length: inflight }, worker));
  return accepted;
}

function request(runId: number, tenantId: string): DispatchRequest {
  const now = Date.now();
  return { runId, attempt: 1, tenantId, taskId: 1, taskName: 'bench', handler: 'noop', params: { n: runId }, scheduledAt: now, deadline: now + 60_000, callbackUrls: ['http://127.0.0.1:1/'] };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill();
  });
}
