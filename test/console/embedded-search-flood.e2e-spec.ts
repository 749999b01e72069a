/**
 * Embedded mode (SQLite, whose driver answers synchronously) under one tenant's flood of run
 * searches: 60 sent at once over 20,000 runs. The tenant's heavy-work lane holds them (one runs,
 * 20 wait, the rest are refused 429 with Retry-After), and another tenant's plain GETs are served
 * between two searches — asserted by order: B's GETs answered while A's searches are still being
 * answered. B's latencies and the event loop's longest holds are logged (the machine is shared:
 * not asserted). A search examines 5,000 runs there, in slices of 1,000 each on a turn of its own
 * (searchInSlices).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { percentile } from '../cluster/support/figures';
import { useTestDatabase } from '../support/databases';
import { cronTask, listenOnLoopback, seedTenant, startConsole, T0, type ConsoleTestApp, type SeededTenant } from './console-test-kit';

const RUNS = 20_000;
const SEARCHES = 60;

/** The flooding client: `count` GETs of `url` at once, each status posted back as it comes. */
const FLOOD = `
const { parentPort, workerData: { url, headers, count } } = require('node:worker_threads');
for (let i = 0; i < count; i++) {
  fetch(url, { headers }).then(async (res) => {
    await res.text();
    parentPort.postMessage({ status: res.status, retryAfter: res.headers.get('retry-after') });
  }, (err) => parentPort.postMessage({ status: 0, retryAfter: String(err) }));
}`;

describe('a tenant\'s search flood in embedded mode (SQLite)', () => {
  const db = useTestDatabase('sqlite');
  let t: ConsoleTestApp;
  let url: string;
  let a: SeededTenant;
  let b: SeededTenant;

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    url = await listenOnLoopback(t);
    a = await seedTenant(t, db.dataSource, 'tenant-a');
    b = await seedTenant(t, db.dataSource, 'tenant-b');
    const task = (await t.http().post('/api/tasks').set(a.admin).send(cronTask('export'))).body as { id: number };
    for (let done = 0; done < RUNS; done += 2000) {
      const rows: string[] = [];
      for (let i = done; i < done + 2000; i++) {
        const at = T0 - (RUNS - i) * 1000;
        rows.push(`('tenant-a',${task.id},'default','FAILED','SCHEDULE','s:${at}',1,0,'{"i":${i}}',${at},${at},${at + 9},'Error: planned failure ${i}',${at},${at + 9})`);
      }
      await db.dataSource.query(`INSERT INTO runs (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at, finished_at, error, created_at, updated_at) VALUES ${rows.join(',')}`);
    }
  }, 120_000);
  afterAll(() => t?.close());

  it("holds one tenant's 60 searches in its lane (429 past 20 waiting) and answers another tenant's GETs between them", async () => {
    const search = `${url}/api/runs/search?q=${encodeURIComponent('found nowhere')}&from=${T0 - RUNS * 1000 - 1}&to=${T0}`;
    const getB = async () => {
      const started = performance.now();
      const res = await fetch(`${url}/api/tasks?limit=50`, { headers: b.viewerKey });
      await res.text();
      expect(res.status).toBe(200);
      return performance.now() - started;
    };
    const alone: number[] = [];
    for (let i = 0; i < 20; i++) alone.push(await getB());
    // Sent from a thread of its own, as from another process: a client on the console's event loop
    // could send only between two of its turns.
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    let searchesLeft = SEARCHES;
    // The longest the console's event loop was held (logged): while A's requests arrive, then while
    // its searches run — what B's request can wait behind, plus what the machine's load adds.
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    const flooder = new Worker(FLOOD, { eval: true, workerData: { url: search, headers: a.viewerKey, count: SEARCHES } });
    let firstAnswered!: () => void;
    const first = new Promise<void>((resolve) => (firstAnswered = resolve));
    const flood = new Promise<void>((resolve, reject) => {
      flooder.on('error', reject);
      flooder.on('message', (answer: { status: number; retryAfter: string | null }) => {
        firstAnswered();
        statuses.push(answer.status);
        if (answer.status === 429) retryAfter = answer.retryAfter;
        if (--searchesLeft === 0) resolve();
      });
    });
    // B, from A's first answer, one GET after the other until A's last: how many were answered
    // while A's searches still were (with each search run in the turn its request arrived in: 0).
    await first;
    const arrivingHeldMs = loop.max / 1e6;
    loop.reset();
    const bMs: number[] = [];
    let answeredDuring = 0;
    while (searchesLeft > 0) {
      bMs.push(await getB());
      if (searchesLeft > 0) answeredDuring++;
    }
    await flood;
    loop.disable();
    await flooder.terminate();
    const ok = statuses.filter((s) => s === 200).length;
    const refused = statuses.filter((s) => s === 429).length;
    expect(ok + refused).toBe(SEARCHES);
    // 429s when the searches reach the lane together: 38 of 60 in most runs; when the flooder's
    // thread is slow to send them (2 busy cores), fewer wait at once, none past 20.
    if (refused > 0) expect(retryAfter).toMatch(/^\d+$/);
    expect(answeredDuring).toBeGreaterThanOrEqual(5);
    console.log(`[embedded search flood] A: ${ok} searches answered, ${refused} refused (429); B alone p50 ${percentile(alone, 50).toFixed(1)} ms, p99 ${percentile(alone, 99).toFixed(1)} ms; B: ${bMs.length} GETs during, p50 ${percentile(bMs, 50).toFixed(1)} ms, p99 ${percentile(bMs, 99).toFixed(1)} ms, max ${Math.max(...bMs).toFixed(1)} ms; event loop held at most ${arrivingHeldMs.toFixed(1)} ms while A's searches arrived, ${(loop.max / 1e6).toFixed(1)} ms while they ran`);
  }, 120_000);
});
