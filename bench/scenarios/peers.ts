import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { machine, RESULTS_DIR, writeResult } from '../support/infra';
import { bullmqSystem } from '../support/peers/bullmq';
import { graphileSystem } from '../support/peers/graphile';
import { KILL_AFTER_T_MS, PEER_WARMUP, caseName, runPeerCase, type CaseSpec, type PeerCaseResult, type PeerSystem } from '../support/peers/peer-case';
import { PeerServer } from '../support/peers/private-server';
import { option, type Scenario } from '../support/scenario';
import { fmt, markdownTable, table } from '../support/table';
import { BURST_EXECUTOR_ENV, BURST_TENANT } from './burst';
import { runApiBurst } from './burst-api';

/**
 * Peers (issue 22 item 4): the same bursts — N jobs all due at one instant T, lateness = handler
 * start − T read with Date.now() in the handler — on BullMQ (a private Redis, AOF fsync every
 * second), graphile-worker (a private PostgreSQL 15, fsync on) and Baton (through its REST API:
 * ONCE tasks, burst-api's harness), case by case, one system after the other, in one run. Each
 * case warms up first (peers 1,000 jobs, Baton 300 runs). Each system has its own store on
 * loopback, started from scripts/redis.sh, scripts/postgres.sh and scripts/mariadb.sh on ports of
 * its own and stopped at the end (by PID, also when the run is interrupted).
 */

const BATON_WARMUP = 300;
const SYSTEMS = ['bullmq', 'graphile-worker', 'baton'] as const;
type SystemKey = (typeof SYSTEMS)[number];

const QUICK = '1000x2,4000x2';
const FULL = '1000x1,1000x2,4000x2,4000x2kill,20000x2';

function parseCases(spec: string): CaseSpec[] {
  return spec.split(',').map((c) => {
    const m = /^(\d+)x(\d+)(kill(?:@(-?\d+))?)?$/.exec(c.trim());
    if (!m) throw new Error(`--cases: "${c}" is not N x workers (e.g. 1000x2, 4000x2kill, 4000x2kill@-1000)`);
    return { n: Number(m[1]), workers: Number(m[2]), kill: m[3] !== undefined, ...(m[4] === undefined ? {} : { killAtMs: Number(m[4]) }) };
  });
}

async function batonCase(spec: CaseSpec, mariadb: PeerServer, log: (s: string) => void, profile: boolean, engineEnv: Record<string, string>): Promise<PeerCaseResult> {
  const profileDir = profile ? join(RESULTS_DIR, 'profiles', `peers-${caseName(spec)}`) : undefined;
  const r = await runApiBurst(spec.n, spec.workers, log, { warmup: BATON_WARMUP, killAfterMs: spec.kill ? (spec.killAtMs ?? KILL_AFTER_T_MS) : undefined, mysqlServerUrl: mariadb.url, profileDir, engineEnv });
  const total = Object.values(r.cpuSec).reduce((a, b) => a + b, 0);
  return {
    system: 'baton',
    ...spec,
    seedMs: r.createMs.batched,
    ...r.handlerStarts,
    lost: r.notEnded,
    killed: r.killed ? { killedAfterTMs: r.killed.killedAfterTMs, victim: r.killed.victim, held: r.killed.held, takeoverMs: r.killed.takeoverMs } : undefined,
    cpuSec: r.cpuSec,
    cpuBeforeTSec: r.cpuBeforeTSec,
    cpuMsPerRun: +((total * 1000) / spec.n).toFixed(3),
  };
}

/** Takeover: ms after the kill; "none held" when the victim held nothing any more; "never" when its jobs were lost. */
function takeoverCell(r: PeerCaseResult): string | number {
  if (!r.killed) return '';
  if (r.killed.takeoverMs !== null) return r.killed.takeoverMs;
  return r.lost > 0 ? 'never' : 'none held';
}

/** One row per case, one column per system (the issue's table), each cell the case's figures on that system. */
function sideBySide(results: readonly PeerCaseResult[], systems: readonly SystemKey[]): { headers: string[]; rows: string[][] } {
  const cases = [...new Map(results.map((r) => [caseName(r), r as CaseSpec])).values()];
  const cell = (r: PeerCaseResult | undefined): string => {
    if (!r) return 'failed';
    const takeover = r.killed ? `, takeover ${takeoverCell(r)}${typeof takeoverCell(r) === 'number' ? ' ms' : ''}` : '';
    return `${fmt(r.lateness.p50)} / ${fmt(r.lateness.p99)}, ${fmt(r.ratePerSec)}/s, ${r.lost} / ${r.duplicated}${takeover}, ${fmt(r.cpuMsPerRun)} ms CPU`;
  };
  return {
    headers: ['case', ...systems],
    rows: cases.map((c) => [caseLabel(c), ...systems.map((k) => cell(results.find((r) => r.system === k && caseName(r) === caseName(c))))]),
  };
}

function caseLabel(c: CaseSpec): string {
  const at = c.killAtMs ?? KILL_AFTER_T_MS;
  return `${c.n.toLocaleString('en')} × ${c.workers}${c.kill ? `, kill -9 at T${at < 0 ? '−' : '+'}${Math.abs(at) / 1000} s` : ''}`;
}

export const peers: Scenario = {
  name: 'peers',
  description: 'the same bursts on BullMQ (Redis, AOF everysec), graphile-worker (PostgreSQL 15, fsync on) and Baton (REST API): lateness, rate, lost, dup, CPU per run',
  quickSet: false,
  options: (
    [
      [`--cases=${QUICK}`, `N x workers (Baton: engines, with 2 executors); "kill": SIGKILL of the busiest at T+0.5 s ("kill@-1000": at T−1 s). Quick: ${QUICK}; --full: ${FULL}`],
      [`--systems=${SYSTEMS.join(',')}`, 'which systems'],
      ['--concurrency=16', "each peer worker's concurrency (Baton's executors: the burst scenario's 16)"],
      ['--redis-port=19900', 'the private Redis (scripts/redis.sh)'],
      ['--postgres-port=19910', 'the private PostgreSQL (scripts/postgres.sh)'],
      ['--mariadb-port=19920', "Baton's private MariaDB (scripts/mariadb.sh; not the shared 3407, whose CPU other work shares)"],
      ['--tag=-x', 'result file suffix: bench/results/peers-x.json'],
      ['--profile', "Baton's engines and executors under the V8 profiler from T (bench/results/profiles/peers-<case>/; bench/profile-summary.ts)"],
      ['--engine-env=K=V,…', "Baton's engines' settings beyond the defaults (e.g. BATON_SEND_AHEAD_MS=0)"],
    ] as const
  )
    .map(([flag, what]) => `${flag.padEnd(40)} ${what}`)
    .join('\n'),
  async run({ full, args, log }) {
    const cases = parseCases(option(args, 'cases') ?? (full ? FULL : QUICK));
    const systems = (option(args, 'systems')?.split(',') ?? [...SYSTEMS]) as SystemKey[];
    for (const s of systems) if (!SYSTEMS.includes(s)) throw new Error(`--systems: unknown system "${s}" (known: ${SYSTEMS.join(', ')})`);
    const concurrency = Number(option(args, 'concurrency') ?? BURST_EXECUTOR_ENV.BATON_EXECUTOR_CONCURRENCY);
    const engineEnv = Object.fromEntries((option(args, 'engine-env') ?? '').split(',').filter(Boolean).map((kv) => kv.split('=') as [string, string]));
    const servers: PeerServer[] = [];
    const peerSystems = new Map<SystemKey, PeerSystem>();
    const results: PeerCaseResult[] = [];
    const failures: Array<{ system: string; case: string; error: string }> = [];
    let batonSettings: Record<string, unknown> | undefined;
    try {
      if (systems.includes('bullmq')) {
        const redis = PeerServer.start('redis', Number(option(args, 'redis-port') ?? 19900));
        servers.push(redis);
        peerSystems.set('bullmq', bullmqSystem(redis));
      }
      let mariadb: PeerServer | null = null;
      if (systems.includes('baton')) {
        mariadb = PeerServer.start('mariadb', Number(option(args, 'mariadb-port') ?? 19920));
        servers.push(mariadb);
        batonSettings = {
          mariadb: execFileSync('mariadb', ['--no-defaults', '-h127.0.0.1', `-P${mariadb.port}`, '-ubaton', '-pbaton', '-Ne', "SELECT CONCAT(VERSION(), ', innodb_flush_log_at_trx_commit ', @@innodb_flush_log_at_trx_commit, ', log_bin ', @@log_bin)"], { encoding: 'utf8' }).trim(),
          engines: "the case's workers (cluster tests' ENGINE_TEST_ENV: heartbeat 0.5 s, dead after 2.5 s)",
          executors: '2 demo executors (noop)',
          executorEnv: BURST_EXECUTOR_ENV,
          tenant: BURST_TENANT,
          warmup: BATON_WARMUP,
          seeding: 'POST /api/tasks/batch, ONCE tasks due at T',
        };
      }
      if (systems.includes('graphile-worker')) {
        const pg = PeerServer.start('postgres', Number(option(args, 'postgres-port') ?? 19910));
        servers.push(pg);
        peerSystems.set('graphile-worker', graphileSystem(pg));
      }
      for (const spec of cases) {
        for (const key of systems) {
          log(`peers: ${key}, ${caseName(spec)}…`);
          const peer = peerSystems.get(key);
          let r: PeerCaseResult;
          try {
            r = peer ? await runPeerCase(peer, spec, concurrency, log) : await batonCase(spec, mariadb!, log, args.includes('--profile'), engineEnv);
          } catch (err) {
            // One system's failure does not cost the others' figures of the run: it is a row of its own.
            log(`  ${key} ${caseName(spec)} failed: ${(err as Error).stack ?? err}`);
            failures.push({ system: key, case: caseName(spec), error: (err as Error).message });
            continue;
          }
          results.push(r);
          log(
            `  lateness p50/p99/max ${r.lateness.p50}/${r.lateness.p99}/${r.lateness.max} ms, last start ${r.lastStartMs} ms (${r.ratePerSec}/s), lost ${r.lost}, dup ${r.duplicated}${r.killed ? `, takeover ${r.killed.takeoverMs ?? '-'} ms` : ''}, cpu ${JSON.stringify(r.cpuSec)}`,
          );
        }
      }
    } finally {
      for (const s of servers) s.stop();
    }
    const settings = {
      bullmq: peerSystems.get('bullmq')?.settings,
      'graphile-worker': peerSystems.get('graphile-worker')?.settings,
      baton: { ...batonSettings, engineEnv },
      peerConcurrency: concurrency,
      peerWarmup: PEER_WARMUP,
      node: process.version,
    };
    const headers = ['case', 'system', 'p50', 'p99', 'max', 'last start', 'rate/s', 'lost', 'dup', 'takeover', 'CPU s', 'CPU ms/run'];
    const rows = results.map((r) => [
      caseLabel(r),
      r.system,
      r.lateness.p50,
      r.lateness.p99,
      r.lateness.max,
      r.lastStartMs,
      r.ratePerSec,
      r.lost,
      r.duplicated,
      takeoverCell(r),
      +Object.values(r.cpuSec).reduce((a, b) => a + b, 0).toFixed(2),
      r.cpuMsPerRun,
    ]);
    console.log(`\nPeers — lateness = handler start − T (ms), rate to the last start, lost, duplicated; CPU of workers + store over the burst\n${table(headers, rows)}\n`);
    const side = sideBySide(results, systems);
    console.log(`Peers — side by side: lateness p50 / p99 (ms), rate to the last start (/s), lost / duplicated, CPU per run (ms)\n${table(side.headers, side.rows)}\n\n${markdownTable(side.headers, side.rows)}\n`);
    const cpuRows = results.map((r) => [caseLabel(r), r.system, Object.entries(r.cpuSec).map(([k, v]) => `${k} ${v}${r.cpuBeforeTSec ? ` (${r.cpuBeforeTSec[k]} before T)` : ''}`).join(', ')]);
    console.log(`Peers — CPU seconds by process (from /proc/<pid>/stat, process trees; Baton's lead before T: planning, claiming, idle loops)\n${table(['case', 'system', 'CPU s'], cpuRows)}\n`);
    if (failures.length) console.log(`Peers — failed cases\n${table(['system', 'case', 'error'], failures.map((f) => [f.system, f.case, f.error.slice(0, 200)]))}\n`);
    writeResult(`peers${option(args, 'tag') ?? ''}.json`, { benchmark: 'peers', quick: !full, machine: machine(), settings, results, failures });
    return [
      ...results.map((r): [string, string] => [`peers ${caseName(r)} ${r.system}`, `p99 ${r.lateness.p99} ms, ${r.ratePerSec}/s, lost ${r.lost}, dup ${r.duplicated}, ${r.cpuMsPerRun} ms CPU/run`]),
      ...failures.map((f): [string, string] => [`peers ${f.case} ${f.system}`, `FAILED: ${f.error.slice(0, 120)}`]),
    ];
  },
};
