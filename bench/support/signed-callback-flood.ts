/**
 * A tenant flooding an engine with validly signed callbacks for runs it does not have (each
 * answered 409 UNKNOWN_RUN after a database read, or 429 by the tenant's admission), run as its
 * own process by the `flood` scenario so its CPU is not the engine's or the measuring process's:
 *
 *   node -r ./bench/register.cjs bench/support/signed-callback-flood.ts <engineUrl> <tenant> <secret> <seconds> <connections> <callbacksPerRequest>
 *
 * `connections` requests in flight at all times, each signed anew (a new timestamp: never a
 * replay). Prints one JSON line at the end: requests sent, answers by status, requests per second.
 */
import http from 'node:http';
import { MAX_CALLBACKS_PER_BATCH, PATHS, sign } from '@baton/protocol';

const [url, tenantId, secret, secondsText, connectionsText, perRequestText] = process.argv.slice(2);
const seconds = Number(secondsText);
const connections = Number(connectionsText);
const perRequest = Math.min(MAX_CALLBACKS_PER_BATCH, Math.max(1, Number(perRequestText)));
const path = perRequest === 1 ? PATHS.callback : PATHS.callbackBatch;
const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
const byStatus: Record<string, number> = {};
let sent = 0;
let nextRunId = 2_000_000_000;
let lastSignedAt = 0;

function body(): string {
  const now = Date.now();
  const callback = () => JSON.stringify({ tenantId, runId: nextRunId++, attempt: 1, outcome: 'SUCCEEDED', startedAt: now - 5, finishedAt: now });
  if (perRequest === 1) return callback();
  return `{"callbacks":[${Array.from({ length: perRequest }, callback).join(',')}]}`;
}

function once(): Promise<void> {
  return new Promise((resolve) => {
    const text = body();
    // Two requests signed in the same millisecond with different bodies are distinct; the same body never repeats (run ids grow).
    lastSignedAt = Math.max(Date.now(), lastSignedAt);
    const headers = { ...sign(secret, tenantId, 'POST', path, text, lastSignedAt), 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) };
    const req = http.request(url + path, { method: 'POST', headers, agent }, (res) => {
      res.resume();
      res.on('end', () => {
        byStatus[res.statusCode ?? 0] = (byStatus[res.statusCode ?? 0] ?? 0) + 1;
        resolve();
      });
    });
    req.on('error', () => {
      byStatus.error = (byStatus.error ?? 0) + 1;
      resolve();
    });
    sent++;
    req.end(text);
  });
}

async function lane(until: number): Promise<void> {
  while (Date.now() < until) await once();
}

async function main(): Promise<void> {
  const started = Date.now();
  const until = started + seconds * 1000;
  await Promise.all(Array.from({ length: connections }, () => lane(until)));
  const elapsed = (Date.now() - started) / 1000;
  agent.destroy();
  console.log(JSON.stringify({ sent, byStatus, perSec: Math.round(sent / elapsed), callbacksPerRequest: perRequest }));
}

void main();
