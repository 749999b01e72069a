import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatonClient } from '@baton/executor-sdk/client';
import { demoLogins } from '../../apps/embedded/src/demo-logins';
import { Cluster, EXECUTOR_TEST_ENV, sleep, waitFor } from '../../test/cluster/support/cluster';
import { invocationCheck, percentile } from '../../test/cluster/support/figures';
import { startDemoExecutor, type OwnedProcess } from '../../test/cluster/support/processes';
import { startEmbeddedBaton } from '../support/embedded-baton';
import { keepAlivePost } from '../support/keep-alive-post';
import { cpuSeconds, machine, RESULTS_DIR, writeResult } from '../support/infra';
import { option, parseEngineEnv, type Scenario } from '../support/scenario';
import { table } from '../support/table';
import { TriggerProbe, type ProbeFigures } from '../support/trigger-probe';
import { openTwoTenants } from '../support/two-tenants';
import { readRecords } from './run-now';

/**
 * A busy neighbour on demand: tenant A submits runs through the Node SDK (`BatonClient.submit`, its
 * defaults) at `--load` a second (default 1,000), open loop, while tenant B triggers a task
 * `--rate` times a second (default 10) for `--seconds` (default 10), as it does before A's load
 * (alone): B's trigger → handler start. A console's wake-ups are taken by an engine at once
 * (ClaimSignal), one claim by id per transaction of A's; this measures what that costs B. The
 * target is the isolation benchmarks' (flooded-key, failing-storm): B's p99 during ≤ 1.25 × alone.
 * Cluster mode as a user runs it: one console process, 2 engines at their defaults, one demo
 * executor a tenant (the SDK's defaults), everything through the public API with API keys.
 *
 * `--embedded`: `npm start`'s one process on SQLite instead (console, engine; no MariaDB), and
 * both tenants send events (`POST /api/events`, each starting a run of an EVENT task): A floods
 * `--load` a second (default 500), B sends `--rate` (default 20) for `--seconds` (default 30);
 * B's event → handler start. Tenant A is made through the operator's API, B is the demo tenant;
 * each has a demo executor process of its own.
 */

const TARGET_RATIO = 1.25;
/** A's submissions leave in ticks of this many ms (open loop: on time, whatever the answers). */
const TICK_MS = 10;

export const busyNeighbour: Scenario = {
  name: 'busy-neighbour',
  description: "a tenant submitting 1,000 runs a second through the Node SDK: another tenant's trigger → start, alone and beside it",
  options: "--load=N (A's runs a second, default 1000; embedded 500) --rate=N (B's probe triggers a second, default 10; embedded 20) --seconds=N (default 10; embedded 30) --embedded (one process on SQLite, events) --a-quota=N (embedded: A's dispatch quota a second, default Baton's) --engine-env=BATON_…=…,… --profile (embedded: the flood's CPU profile) --tag=…",
  quickSet: false,
  standalone: (args) => args.includes('--embedded'),
  async run({ args, log }) {
    if (args.includes('--embedded')) return embeddedEvents(args, log);
    const load = Number(option(args, 'load') ?? 1_000);
    const rate = Number(option(args, 'rate') ?? 10);
    const seconds = Number(option(args, 'seconds') ?? 10);
    const tag = option(args, 'tag') ?? '';
    const c = await Cluster.open('busy');
    let failed = true;
    try {
      const { aExecutor, bExecutor, post, console: consoleProc, apiKeys } = await openTwoTenants(c);
      const work = (await post('a', '/tasks', { name: 'work', executorApp: 'demo', handler: 'noop', trigger: { kind: 'MANUAL' } })).id!;
      const report = (await post('b', '/tasks', { name: 'report', executorApp: 'demo', handler: 'noop', trigger: { kind: 'MANUAL' } })).id!;
      const probe = new TriggerProbe([{ name: 'b', trigger: async (n) => (await post('b', `/tasks/${report}/trigger`, { params: { n } })).id! }], () => new Map(c.records([bExecutor]).map((r) => [r.runId, r.at])));
      const client = new BatonClient({ url: consoleProc.url, apiKey: apiKeys.a });

      /** A's load for as long as `until` is pending: `load` a second in ticks; the number sent and refused. */
      const loadA = async (until: Promise<unknown>) => {
        let stop = false;
        const end = () => void (stop = true);
        until.then(end, end); // its rejection is the caller's to see (it awaits `until` too)
        const answers: Array<Promise<unknown>> = [];
        let refused = 0;
        const t0 = Date.now();
        for (let tick = 0; !stop; tick++) {
          await sleep(t0 + tick * TICK_MS - Date.now());
          const due = Math.floor(((tick + 1) * TICK_MS * load) / 1000) - Math.floor((tick * TICK_MS * load) / 1000);
          for (let i = 0; i < due; i++) answers.push(client.submit({ taskId: work, params: { tick, i } }).catch(() => void refused++));
        }
        await Promise.all(answers);
        return { sent: answers.length, refused };
      };

      await probe.run(rate, seconds); // warm-up: connections, the console's first requests, the engines' pools
      await loadA(sleep(3_000)); // A's path warmed too
      const { figures: alone } = await probe.run(rate, seconds);
      log(`  alone: B p50/p99 ${alone.b.p50}/${alone.b.p99} ms`);
      const during = probe.run(rate, seconds);
      const a = await loadA(during);
      const { figures: beside, from, to } = await during;
      client.close();
      const aStarts = c.records([aExecutor]).filter((r) => r.at >= from && r.at <= to).length;
      log(`  beside A (${a.sent} sent, ${a.refused} refused, ${((aStarts * 1000) / Math.max(1, to - from)).toFixed(0)} started a second): B p50/p99 ${beside.b.p50}/${beside.b.p99} ms`);

      const records = c.records([aExecutor, bExecutor]);
      const check = invocationCheck(records, [...new Set(records.map((r) => r.runId))]);
      const ratio = +(beside.b.p99 / Math.max(1, alone.b.p99)).toFixed(2);
      log(table(['series', 'alone p50 / p99 ms', 'beside A p50 / p99 ms', 'p99 ratio', `target ≤ ${TARGET_RATIO}`], [['tenant B', `${alone.b.p50} / ${alone.b.p99}`, `${beside.b.p50} / ${beside.b.p99}`, ratio, ratio <= TARGET_RATIO ? 'met' : 'missed']]));
      log(`  handler starts ${records.length}, duplicated ${check.duplicated.length}`);
      writeResult(`busy-neighbour${tag}.json`, {
        machine: machine(),
        plan: { load, rate, seconds, client: "BatonClient.submit, the SDK's defaults", executors: "demo, the SDK's defaults", engines: "2, Baton's defaults" },
        alone: alone.b,
        beside: beside.b,
        a: { sent: a.sent, refused: a.refused, startsPerSec: +((aStarts * 1000) / Math.max(1, to - from)).toFixed(0) },
        duplicated: check.duplicated.length,
        ratio,
      });
      failed = false;
      return [[`busy neighbour${tag}: B p99 alone → beside A at ${load}/s`, `${alone.b.p99} → ${beside.b.p99} ms (${ratio}×, target ≤ ${TARGET_RATIO}×)`]];
    } finally {
      await c.close(failed);
    }
  },
};

/** What a tenant needs to send events: its API key's header and its EVENT task's event name. */
const EVENT = 'neighbour.tick';

/** The embedded case (`--embedded`): see the scenario's comment. */
async function embeddedEvents(args: readonly string[], log: (line: string) => void): Promise<Array<[string, string]>> {
  const load = Number(option(args, 'load') ?? 500);
  const rate = Number(option(args, 'rate') ?? 20);
  const seconds = Number(option(args, 'seconds') ?? 30);
  const tag = option(args, 'tag') ?? '';
  const profile = args.includes('--profile');
  const dir = mkdtempSync(join(tmpdir(), 'baton-busy-embedded-'));
  const owned: OwnedProcess[] = [];
  const agents: Agent[] = [];
  let failed = true;
  try {
    // --profile: a V8 CPU profile of the embedded process over the flood (bench/profile-summary.ts reads it).
    const profileDir = join(RESULTS_DIR, 'profiles', `busy-neighbour-embedded${tag}`);
    const profiled: Record<string, string> = profile ? { NODE_OPTIONS: `-r ${join(RESULTS_DIR, '../support/cpu-profile.cjs')}`, BENCH_PROFILE_DIR: profileDir, BENCH_PROFILE_SIGNAL: 'SIGWINCH' } : {};
    const baton = await startEmbeddedBaton(dir, { BATON_LOG_LEVEL: 'warn', ...profiled, ...parseEngineEnv(option(args, 'engine-env')) });
    owned.push(baton.process);
    const call = async (path: string, headers: Record<string, string>, body: unknown) => {
      const res = await fetch(`${baton.url}/api${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`POST ${path} → ${res.status} ${text.slice(0, 300)}`);
      return JSON.parse(text) as Record<string, unknown>;
    };
    const logins = demoLogins({});
    const operator = { authorization: `Bearer ${(await call('/auth/login', {}, logins.operator)).token as string}` };
    const quota = option(args, 'a-quota');
    const created = await call('/operator/tenants', operator, { id: 'flooder', name: 'Flooder', ...(quota === undefined ? {} : { ratePerSec: Number(quota), burst: 2 * Number(quota) }) });
    const tenants = { a: { id: 'flooder', secret: created.executorSecret as string }, b: { id: logins.tenant.tenant, secret: baton.secret } };
    const keys: Record<'a' | 'b', Record<string, string>> = { a: {}, b: {} };
    const records: Record<'a' | 'b', string> = { a: join(dir, 'a.records.jsonl'), b: join(dir, 'b.records.jsonl') };
    for (const t of ['a', 'b'] as const) {
      keys[t] = { 'X-API-Key': (await call('/operator/api-keys', operator, { tenantId: tenants[t].id, name: 'bench', role: 'TENANT_ADMIN' })).key as string };
      owned.push(
        await startDemoExecutor({
          name: `executor-${t}`,
          env: { ...EXECUTOR_TEST_ENV, BATON_EXECUTOR_APP: 'neighbour', BATON_TENANT: tenants[t].id, BATON_EXECUTOR_SECRET: tenants[t].secret, BATON_ENGINE_URLS: baton.url },
          recordFile: records[t],
          spoolFile: join(dir, `${t}.spool`),
          logFile: join(dir, `executor-${t}.log`),
        }),
      );
      await call('/tasks', keys[t], { name: 'on-tick', executorApp: 'neighbour', handler: 'noop', trigger: { kind: 'EVENT', event: EVENT } });
    }
    const executorsUp = async (t: 'a' | 'b') => ((await (await fetch(`${baton.url}/api/executors?app=neighbour`, { headers: keys[t] })).json()) as Array<{ state: string }>).some((e) => e.state === 'UP');
    await waitFor(async () => (await executorsUp('a')) && (await executorsUp('b')), { timeoutMs: 15_000, intervalMs: 100, what: 'both executors UP' });
    // A bounded pool of keep-alive connections a tenant, as a client sending this many would keep (fetch opens one a request in
    // flight); an idle one is closed after 4 s, before the server's keep-alive timeout (5 s) could close it under a request.
    agents.push(new Agent({ keepAlive: true, maxSockets: 64, timeout: 4_000 }), new Agent({ keepAlive: true, maxSockets: 8, timeout: 4_000 }));
    const posts = { a: keepAlivePost(agents[0], new URL(baton.url), keys.a), b: keepAlivePost(agents[1], new URL(baton.url), keys.b) };
    /** B's answers (POST sent → its 201), ms. */
    const answers: number[] = [];
    /** One event of tenant `t`; the id of the run it started. */
    const emit = async (t: 'a' | 'b', n: number) => {
      const sent = performance.now();
      const { status, body } = await posts[t]('/api/events', { name: EVENT, payload: { n } }).answer;
      if (t === 'b') answers.push(performance.now() - sent);
      if (status !== 201) throw new Error(`${t}: POST /api/events → ${status} ${body.slice(0, 300)}`);
      return (JSON.parse(body) as { runs: Array<{ id: number }> }).runs[0].id;
    };
    const probe = new TriggerProbe([{ name: 'b', trigger: (n) => emit('b', n) }], () => new Map(readRecords(records.b).map((r) => [r.runId, r.at])));

    /** A's flood for as long as `until` is pending: `load` events a second in ticks, open loop; the number sent and refused. */
    const flood = async (until: Promise<unknown>) => {
      let stop = false;
      const end = () => void (stop = true);
      until.then(end, end);
      const answers: Array<Promise<unknown>> = [];
      let refused = 0;
      const t0 = Date.now();
      for (let tick = 0; !stop; tick++) {
        await sleep(t0 + tick * TICK_MS - Date.now());
        const due = Math.floor(((tick + 1) * TICK_MS * load) / 1000) - Math.floor((tick * TICK_MS * load) / 1000);
        for (let i = 0; i < due; i++) answers.push(emit('a', tick).catch(() => void refused++));
      }
      await Promise.all(answers);
      return { sent: answers.length, refused };
    };

    await probe.run(rate, 5); // warm-up: connections, the first requests' code paths
    await flood(sleep(3_000));
    await sleep(2_000); // A's last runs end
    /** B's answers since the last call: p50 / p95, ms. */
    const answered = () => {
      const ms = answers.splice(0);
      return { p50: Math.round(percentile(ms, 50)), p95: Math.round(percentile(ms, 95)) };
    };
    answered();
    /** The embedded process's CPU (share of one core) since the last call. */
    let cpu0 = { sec: cpuSeconds(baton.process.pid), at: performance.now() };
    const cpuShare = () => {
      const now = { sec: cpuSeconds(baton.process.pid), at: performance.now() };
      const share = (now.sec - cpu0.sec) / ((now.at - cpu0.at) / 1000);
      cpu0 = now;
      return +share.toFixed(2);
    };
    cpuShare();
    const loadBefore = loadavg()[0];
    const { figures: alone } = await probe.run(rate, seconds);
    const cpuAlone = cpuShare();
    const answersAlone = answered();
    log(`  alone: B p50/p95/p99 ${alone.b.p50}/${alone.b.p95}/${alone.b.p99} ms, answers p50/p95 ${answersAlone.p50}/${answersAlone.p95} ms; embedded process CPU ${cpuAlone} of a core`);
    if (profile) process.kill(baton.process.pid, 'SIGWINCH');
    const during = probe.run(rate, seconds);
    during.catch(() => undefined); // its failure is thrown below, once the flood has stopped
    const a = await flood(during);
    const { figures: beside, from, to } = await during;
    const cpuBeside = cpuShare();
    const answersBeside = answered();
    log(`  B's answers beside A p50/p95 ${answersBeside.p50}/${answersBeside.p95} ms; embedded process CPU ${cpuBeside} of a core`);
    const aStarts = readRecords(records.a).filter((r) => r.at >= from && r.at <= to).length;
    const aPerSec = +((aStarts * 1000) / Math.max(1, to - from)).toFixed(0);
    log(`  beside A (${a.sent} events sent, ${a.refused} refused, ${aPerSec} runs started a second): B p50/p95/p99 ${beside.b.p50}/${beside.b.p95}/${beside.b.p99} ms`);
    const all = [...readRecords(records.a), ...readRecords(records.b)];
    const check = invocationCheck(all, [...new Set(all.map((r) => r.runId))]);
    const row = (f: ProbeFigures) => `${f.p50} / ${f.p95} / ${f.p99}`;
    const ratio = +(beside.b.p95 / Math.max(1, alone.b.p95)).toFixed(2);
    log(table(['series', 'alone p50 / p95 / p99 ms', 'beside A p50 / p95 / p99 ms', 'p95 ratio'], [['tenant B (events)', row(alone.b), row(beside.b), ratio]]));
    writeResult(`busy-neighbour-embedded${tag}.json`, {
      machine: machine(),
      plan: { mode: 'embedded (npm start, SQLite)', load, rate, seconds, aQuota: quota ?? 'default', via: 'POST /api/events, one EVENT task a tenant', executors: 'a demo executor process a tenant (the SDK), concurrency 16' },
      alone: { ...alone.b, answer: answersAlone },
      beside: { ...beside.b, answer: answersBeside },
      a: { sent: a.sent, refused: a.refused, startsPerSec: aPerSec },
      embeddedCpuShare: { alone: cpuAlone, beside: cpuBeside },
      /** The machine's 1-minute load average before B's probes alone and after the flood: the CPU others left it. */
      loadAverage: { before: +loadBefore.toFixed(1), after: +loadavg()[0].toFixed(1) },
      duplicated: check.duplicated.length,
      ratio,
    });
    failed = false;
    return [[`busy neighbour embedded${tag}: B event → start p95 alone → beside A's ${load} events/s`, `${alone.b.p95} → ${beside.b.p95} ms (${ratio}×; p50 ${alone.b.p50} → ${beside.b.p50}, p99 ${alone.b.p99} → ${beside.b.p99})`]];
  } finally {
    for (const agent of agents) agent.destroy();
    for (const p of owned.reverse()) await p.stop();
    if (failed) log(`  kept for a look: ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}
