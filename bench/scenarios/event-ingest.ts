import { join } from 'node:path';
import { Agent } from 'node:http';
import { Cluster, waitFor } from '../../test/cluster/support/cluster';
import { invocationCheck, percentile } from '../../test/cluster/support/figures';
import { startConsoleProcess } from '../../test/cluster/support/processes';
import { insertApiKey } from '../../test/console/console-test-kit';
import { CpuMeter } from '../support/cpu-meter';
import { machine, mariadbServerPid, writeResult } from '../support/infra';
import { keepAlivePost } from '../support/keep-alive-post';
import { option, parseEngineEnv, type Scenario } from '../support/scenario';
import { table } from '../support/table';
import { AT_DEFAULTS } from './run-now';

/** CPU seconds per process as ms each of `n` (an event, a run). */
function msEach(cpuSeconds: Record<string, number>, n: number): Record<string, number> {
  return Object.fromEntries(Object.entries(cpuSeconds).map(([k, v]) => [k, +((v * 1000) / Math.max(1, n)).toFixed(3)]));
}

/** Issue 42's ingestion target (events a second, with batching). */
const TARGET_PER_SEC = 5_000;

type Phase = 'unmatched' | 'matched';

interface PhaseFigures {
  phase: Phase;
  events: number;
  seconds: number;
  perSecond: number;
  answerP50: number;
  answerP99: number;
  refused: number;
  /** CPU ms an event, per process (over the phase's sending window). */
  cpuMsPerEvent: Record<string, number>;
  /** matched: the runs the events started, how many the executors started, lost and duplicated. */
  runs?: {
    created: number;
    started: number;
    lost: number;
    duplicated: number;
    /** Seconds from the last answer until every run had started. */
    drainSeconds: number;
    /** Runs started while the events came in. */
    startedDuringIntake: number;
    /** Runs ÷ seconds from the first event sent to the last run's start: the pipeline's rate, intake and dispatch sharing the cores. */
    endToEndPerSec: number;
    /** CPU ms a run per process from the first event sent until every run had started (intake and drain). */
    cpuMsPerRun: Record<string, number>;
  };
}

/**
 * Event ingestion with batching (issue 42: ≥ 5,000 events/s): `--clients` (default 8) keep-alive
 * connections each send `POST /api/events` with `--batch` events (default 100) back to back for
 * `--seconds` (default 10), closed loop, through the public API with an API key. Two phases:
 * `unmatched` — events no task subscribes to (each stored, matched against the tenant's
 * subscribers, answered 201: what ingestion alone costs); `matched` — each event starts a run of an
 * EVENT task (the event and its run written together; the engines dispatch the backlog meanwhile
 * and after, and every run is checked started once). Accepted events a second, the answer's p50 /
 * p99, refusals, CPU an event per process; for `matched`, the runs started while the events came
 * in, how long after the last answer the last one started, and the runs a second end to end (the
 * cores are shared: an engine that dispatches more meanwhile leaves the console less for intake).
 * Cluster mode as a user runs it: one console process, 2 engines at their defaults, 2 demo
 * executors (the SDK's defaults), MariaDB.
 */
export const eventIngest: Scenario = {
  name: 'event-ingest',
  description: 'events sent in batches as fast as the console takes them: events a second stored (no subscriber, and each starting a run), answer times, CPU an event',
  options: "--clients=N (default 8) --batch=N (events a request, default 100) --seconds=N (a phase, default 10) --phases=unmatched,matched --engine-env=BATON_A=1,… (both engines' settings beyond the defaults, e.g. BATON_TASK_RATE=500: every task's runs capped at 500 a second an engine) --tag=…",
  quickSet: false,
  async run({ args, log }) {
    const clients = Number(option(args, 'clients') ?? 8);
    const batch = Number(option(args, 'batch') ?? 100);
    const seconds = Number(option(args, 'seconds') ?? 10);
    const phases = (option(args, 'phases') ?? 'unmatched,matched').split(',') as Phase[];
    const tag = option(args, 'tag') ?? '';
    const engineEnv = parseEngineEnv(option(args, 'engine-env'));
    const c = await Cluster.open('ingest');
    let failed = true;
    try {
      const engines = await c.startEngines(2, { ...AT_DEFAULTS, ...engineEnv });
      const executors = await c.startExecutors(2);
      const consoleProc = await startConsoleProcess({ name: 'console', logFile: join(c.dir, 'console.log'), env: { BATON_DB_URL: c.db.url, BATON_CONSOLE_PORT: '0', BATON_HOST: '127.0.0.1' } });
      const key = await insertApiKey(c.ds, c.tenant.id, 'TENANT_ADMIN');
      const url = new URL(consoleProc.url);
      const agent = new Agent({ keepAlive: true, maxSockets: clients, timeout: 4_000 });
      const sendPost = keepAlivePost(agent, url, key);
      const post = (path: string, body: unknown) => sendPost(path, body).answer;
      const task = await post('/api/tasks', { name: 'on-order', executorApp: 'demo', handler: 'noop', trigger: { kind: 'EVENT', event: 'order.paid' } });
      if (task.status !== 201) throw new Error(`POST /api/tasks → ${task.status} ${task.body.slice(0, 300)}`);
      const mariadb = await mariadbServerPid(c.ds);
      const pids = { console: consoleProc.pid, ...Object.fromEntries(engines.map((e) => [e.name, e.pid])), ...Object.fromEntries(executors.map((e) => [e.name, e.pid])), ...(mariadb ? { mariadb } : {}) };

      /** `clients` loops sending batches of `name` for `ms`: each answer's time, events accepted and refused. */
      const send = async (name: string, ms: number, prefix: string) => {
        const answers: number[] = [];
        let accepted = 0;
        let refused = 0;
        let n = 0;
        const until = Date.now() + ms;
        await Promise.all(
          Array.from({ length: clients }, async () => {
            while (Date.now() < until) {
              const events = Array.from({ length: batch }, () => ({ name, payload: { k: `${prefix}-${n++}` } }));
              const t0 = performance.now();
              const res = await post('/api/events', { events });
              answers.push(performance.now() - t0);
              if (res.status !== 200) {
                refused += batch;
                continue;
              }
              const { created } = JSON.parse(res.body) as { created: number };
              accepted += created;
              refused += batch - created;
            }
          }),
        );
        return { answers, accepted, refused };
      };

      await send('warm.up', 2_000, 'w'); // connections, the console's first requests, the engines' pools
      const results: PhaseFigures[] = [];
      for (const phase of phases) {
        const runsBefore = c.records(executors).length;
        const meter = new CpuMeter(pids);
        const t0 = Date.now();
        const sent = await send(phase === 'matched' ? 'order.paid' : 'audit.seen', seconds * 1000, phase);
        const intakeEnd = Date.now();
        const window = (intakeEnd - t0) / 1000;
        const cpu = meter.used();
        const figures: PhaseFigures = {
          phase,
          events: sent.accepted,
          seconds: +window.toFixed(1),
          perSecond: Math.round(sent.accepted / window),
          answerP50: Math.round(percentile(sent.answers, 50)),
          answerP99: Math.round(percentile(sent.answers, 99)),
          refused: sent.refused,
          cpuMsPerEvent: msEach(cpu, sent.accepted),
        };
        if (phase === 'matched') {
          const created = Number(((await c.ds.query('SELECT COUNT(*) AS n FROM runs WHERE task_id = ?', [(JSON.parse(task.body) as { id: number }).id])) as Array<{ n: unknown }>)[0].n);
          await waitFor(() => c.records(executors).length - runsBefore >= created, { timeoutMs: 300_000, intervalMs: 1_000, what: `the ${created} runs the events started, started` });
          const whole = meter.used(); // from the first event until every run started (sampled up to the wait's second later)
          const records = c.records(executors);
          const check = invocationCheck(records, [...new Set(records.map((r) => r.runId))]);
          const phaseStarts = records.filter((r) => r.at >= t0).map((r) => r.at); // only this phase's events start runs
          const lastStart = phaseStarts.reduce((a, b) => Math.max(a, b), t0);
          figures.runs = {
            created,
            started: new Set(records.map((r) => r.runId)).size,
            lost: created - (records.length - runsBefore - check.duplicated.length),
            duplicated: check.duplicated.length,
            drainSeconds: +((lastStart - intakeEnd) / 1000).toFixed(1),
            startedDuringIntake: phaseStarts.filter((at) => at <= intakeEnd).length,
            endToEndPerSec: Math.round(created / ((lastStart - t0) / 1000)),
            cpuMsPerRun: msEach(whole, created),
          };
        }
        log(`  ${phase}: ${figures.perSecond} events/s (${figures.events} in ${figures.seconds} s), answer p50/p99 ${figures.answerP50}/${figures.answerP99} ms, refused ${figures.refused}${figures.runs ? `; runs ${figures.runs.created}, ${figures.runs.startedDuringIntake} started meanwhile, all ${figures.runs.started} by ${figures.runs.drainSeconds} s after (${figures.runs.endToEndPerSec} runs/s end to end, CPU ms a run ${Object.entries(figures.runs.cpuMsPerRun).map(([k, v]) => `${k} ${v}`).join(', ')}), lost ${figures.runs.lost}, duplicated ${figures.runs.duplicated}` : ''}`);
        results.push(figures);
      }
      log(
        table(
          ['phase', 'events/s', 'answer p50 / p99 ms', 'refused', 'CPU ms an event (console, engines, MariaDB, executors)', 'runs/s end to end', `target ≥ ${TARGET_PER_SEC}/s`],
          results.map((r) => {
            const sum = (prefix: string) => Object.entries(r.cpuMsPerEvent).filter(([k]) => k.startsWith(prefix)).reduce((s, [, v]) => s + v, 0).toFixed(3);
            return [r.phase, r.perSecond, `${r.answerP50} / ${r.answerP99}`, r.refused, `${sum('console')}, ${sum('engine')}, ${sum('mariadb')}, ${sum('executor')}`, r.runs?.endToEndPerSec ?? '—', r.perSecond >= TARGET_PER_SEC ? 'met' : 'missed'];
          }),
        ),
      );
      agent.destroy();
      writeResult(`event-ingest${tag}.json`, { machine: machine(), plan: { clients, batch, seconds, phases, engines: "2, Baton's defaults", engineEnv, executors: "2 demo, the SDK's defaults" }, results });
      failed = false;
      return results.map((r) => [`event ingest${tag}: ${r.phase}`, `${r.perSecond} events/s, answer p99 ${r.answerP99} ms (target ≥ ${TARGET_PER_SEC}/s)`]);
    } finally {
      await c.close(failed);
    }
  },
};
