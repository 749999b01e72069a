import { join } from 'node:path';
import { In } from 'typeorm';
import { EXECUTOR_DEFAULTS } from '@baton/executor-sdk';
import { RunEntity } from '@baton/persistence';
import type { DemoInvocationRecord } from '../../apps/demo-executor/src';
import { Cluster, sleep, waitFor } from '../../test/cluster/support/cluster';
import { startConsoleProcess, type ExecutorNode } from '../../test/cluster/support/processes';
import { insertTasks, seedTenant, type SeededTenant } from '../../test/cluster/support/seed';
import { insertApiKey } from '../../test/console/console-test-kit';
import { machine, writeResult } from '../support/infra';
import { JsonlTail } from '../support/jsonl-tail';
import { PeerServer } from '../support/peers/private-server';
import { option, type Scenario } from '../support/scenario';
import { table } from '../support/table';
import { stats, type StageStats } from './burst';
import { AT_DEFAULTS } from './run-now';

/**
 * Run now during a burst (issue 44's target: manual triggers during a scheduled burst start p99 ≤
 * 50 ms later than on an idle cluster). A console process, `engines` engines at Baton's defaults
 * (send-ahead 10 s), `executors` demo executors of tenant `acme` and one of tenant `other`, all at
 * the issue's settings (concurrency 32, the SDK's default queue limit). Two trigger loops — one of
 * acme's MANUAL tasks, one of other's — each `POST /api/tasks/:id/trigger` after a random pause
 * (50–300 ms, so none lines up with a poll), not waiting for the handler; measured: trigger sent →
 * handler start (the executor's record, one clock). First on the idle cluster for `idleMs`; then
 * acme's `burst` ONCE tasks (handler `sleep handlerMs`) due over `spreadMs` from T are inserted
 * and the loops run from TRIGGER_FROM_MS before T (the engines have planned the burst and sent
 * what the executors have room for ahead of its instants) until every burst run has started:
 * the triggers before T meet executors whose room is held by runs sent ahead, those after T the
 * burst running.
 */

/** The issue's executors: concurrency 32 and the SDK's default queue limit (the rest: the cluster harness's). */
const EXECUTOR_ENV = { BATON_EXECUTOR_CONCURRENCY: '32', BATON_EXECUTOR_QUEUE_LIMIT: String(EXECUTOR_DEFAULTS.queueLimit) };

/** The burst's first instant is this far after its tasks are inserted: the look-ahead (10 s) and a planner's poll. */
const T_AFTER_INSERT_MS = 14_000;
/** The triggers start this long before T: the engines have sent the burst's first runs ahead by then (send-ahead 10 s). */
const TRIGGER_FROM_MS = 8_000;
/** The target: p99 during the burst at most this much above the idle p99. */
const TARGET_MS = 50;

type Phase = 'idle' | 'ahead' | 'running';
const PHASES: readonly Phase[] = ['idle', 'ahead', 'running'];
type Who = 'same' | 'other';

interface Sent {
  who: Who;
  phase: Phase;
  runId: number;
  sentAt: number;
}

interface Figures {
  /** Trigger sent → handler start. */
  start: StageStats;
  /** From the run row: created (the console's commit) → dispatched (the request left an engine) → started (the handler). */
  createdToDispatched: StageStats;
  dispatchedToStarted: StageStats;
}

export interface RunNowBurstResult {
  engines: number;
  executors: number;
  burst: { runs: number; spreadMs: number; handlerMs: number; startLate: StageStats };
  /** Per tenant (`same`: acme, the burst's; `other`), per phase: idle, before T (`ahead`), T → the burst's last start (`running`). */
  figures: Record<Who, Record<Phase, Figures>>;
  /** During (ahead and running together) − idle, p99, per tenant: the target is ≤ TARGET_MS. */
  p99Increase: Record<Who, number>;
  /** Triggers whose handler never started. */
  missing: number;
}

interface Options {
  engines: number;
  executors: number;
  runs: number;
  spreadMs: number;
  handlerMs: number;
  idleMs: number;
}

async function runCase(o: Options, mysqlServerUrl: string | undefined, log: (s: string) => void): Promise<RunNowBurstResult> {
  const c = await Cluster.open('rnb', 'acme', { mysqlServerUrl });
  let failed = true;
  try {
    const other = await seedTenant(c.ds, { id: 'other', engineGroup: c.tenant.engineGroup });
    await c.startEngines(o.engines, AT_DEFAULTS);
    await c.startExecutors(o.executors, EXECUTOR_ENV);
    const otherExecutor = await c.startExecutorOf(other, 'other-executor', EXECUTOR_ENV);
    const console_ = await startConsoleProcess({ name: 'console', logFile: join(c.dir, 'console.log'), env: { BATON_DB_URL: c.db.url, BATON_CONSOLE_PORT: '0', BATON_HOST: '127.0.0.1' } });
    const starts = new StartTimes([...c.executors, otherExecutor]);
    const loops = [await triggerLoop(console_.url, c.tenant, 'same', c), await triggerLoop(console_.url, other, 'other', c)];
    const sent: Sent[] = [];
    const run = (phase: (at: number) => Phase, until: () => boolean) => Promise.all(loops.map((l) => l(phase, until, sent)));

    log(`  idle: triggers for ${o.idleMs} ms…`);
    const idleUntil = Date.now() + o.idleMs;
    await run(() => 'idle', () => Date.now() >= idleUntil);

    const T = Math.ceil((Date.now() + T_AFTER_INSERT_MS) / 1000) * 1000;
    const burstTasks = await insertTasks(
      c.ds,
      c.tenant,
      Array.from({ length: o.runs }, (_, i) => ({ name: `burst-${i}`, trigger: { kind: 'ONCE' as const, at: T + Math.floor((i * o.spreadMs) / o.runs) }, handler: 'sleep', params: { ms: o.handlerMs } })),
    );
    const burstIds = new Set(burstTasks);
    log(`  burst: ${o.runs} ONCE tasks due over ${o.spreadMs} ms from T (in ${T - Date.now()} ms); triggers from T − ${TRIGGER_FROM_MS} ms to its last start…`);
    await sleep(Math.max(0, T - TRIGGER_FROM_MS - Date.now()));
    const burstOver = async () => (await c.ds.query("SELECT COUNT(*) AS n FROM runs WHERE tenant_id = ? AND started_at IS NOT NULL AND cause = 'SCHEDULE'", [c.tenant.id]))[0].n >= o.runs;
    let over = false;
    const deadline = T + o.spreadMs + 60_000;
    const watch = (async () => {
      while (!over && Date.now() < deadline) {
        over = await burstOver();
        if (!over) await sleep(250);
      }
      over = true;
    })();
    await run((at) => (at < T ? 'ahead' : 'running'), () => over);
    await watch;

    // Every trigger's handler start (or 10 s of waiting: counted missing).
    await waitFor(() => sent.every((s) => starts.of(s.runId) !== undefined), { timeoutMs: 10_000, intervalMs: 100, what: 'every trigger started' }).catch(() => undefined);
    const rows = await c.ds.getRepository(RunEntity).find({ where: { id: In(sent.map((s) => s.runId)) } });
    const rowOf = new Map(rows.map((r) => [r.id, r]));
    const burstRuns = (await c.runs()).filter((r) => burstIds.has(r.taskId));
    const figuresOf = (who: Who, phases: readonly Phase[]): Figures => {
      const mine = sent.filter((s) => s.who === who && phases.includes(s.phase));
      const dispatched = mine.map((s) => rowOf.get(s.runId)).filter((r): r is RunEntity => r?.dispatchedAt !== null && r !== undefined);
      return {
        start: stats(mine.flatMap((s) => (starts.of(s.runId) === undefined ? [] : [starts.of(s.runId)! - s.sentAt]))),
        createdToDispatched: stats(dispatched.map((r) => r.dispatchedAt! - r.createdAt)),
        dispatchedToStarted: stats(dispatched.filter((r) => r.startedAt !== null).map((r) => r.startedAt! - r.dispatchedAt!)),
      };
    };
    const figures = Object.fromEntries((['same', 'other'] as const).map((who) => [who, Object.fromEntries(PHASES.map((p) => [p, figuresOf(who, [p])]))])) as RunNowBurstResult['figures'];
    const increase = (who: Who) => figuresOf(who, ['ahead', 'running']).start.p99 - figures[who].idle.start.p99;
    failed = false;
    return {
      engines: o.engines,
      executors: o.executors,
      burst: { runs: o.runs, spreadMs: o.spreadMs, handlerMs: o.handlerMs, startLate: stats(burstRuns.filter((r) => r.startedAt !== null).map((r) => r.startedAt! - r.scheduledAt)) },
      figures,
      p99Increase: { same: increase('same'), other: increase('other') },
      missing: sent.filter((s) => starts.of(s.runId) === undefined).length,
    };
  } finally {
    await c.close(failed);
  }
}

/**
 * A tenant's trigger loop: a MANUAL task (handler `noop`, created through the API) triggered
 * after a random pause until `until()`, each trigger's run id and the moment it was sent kept.
 */
async function triggerLoop(url: string, tenant: SeededTenant, who: Who, c: Cluster) {
  const auth = await insertApiKey(c.ds, tenant.id, 'TENANT_ADMIN');
  const post = async (path: string, body: unknown): Promise<{ id: number }> => {
    const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify(body) });
    const json = (await res.json()) as { id: number };
    if (res.status !== 201) throw new Error(`POST ${path} (${tenant.id}) → ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
    return json;
  };
  const task = await post('/api/tasks', { name: `run-now-${who}`, executorApp: 'demo', handler: 'noop', trigger: { kind: 'MANUAL' } });
  return async (phase: (at: number) => Phase, until: () => boolean, sent: Sent[]): Promise<void> => {
    while (!until()) {
      await sleep(50 + Math.random() * 250);
      const sentAt = Date.now();
      const run = await post(`/api/tasks/${task.id}/trigger`, {});
      sent.push({ who, phase: phase(sentAt), runId: run.id, sentAt });
    }
  };
}

/** Handler starts by run id, from the executors' record files (read incrementally: the burst's lines are many). */
class StartTimes {
  private readonly tails: Array<JsonlTail<DemoInvocationRecord>>;
  private readonly at = new Map<number, number>();

  constructor(executors: readonly ExecutorNode[]) {
    this.tails = executors.map((e) => new JsonlTail<DemoInvocationRecord>(e.recordFile));
  }

  of(runId: number): number | undefined {
    if (!this.at.has(runId)) for (const t of this.tails) for (const r of t.next()) if (!this.at.has(r.runId)) this.at.set(r.runId, r.at);
    return this.at.get(runId);
  }
}

export const runNowBurst: Scenario = {
  name: 'run-now-burst',
  description: `manual triggers of a tenant and of another tenant during a scheduled burst (ONCE tasks sent ahead) against the same triggers on the idle cluster: trigger → handler start p50/p99 (target: p99 ≤ ${TARGET_MS} ms above idle)`,
  options:
    '--engines=3, --executors=3 (of the burst tenant; the other tenant has one), --runs=1000 (ONCE tasks), --spread-ms=5000 (their instants from T; 0: one instant), --handler-ms=200, --idle-ms=10000, --mariadb-port= (a private MariaDB on that port, scripts/mariadb.sh, instead of the shared one), --tag= (result file suffix)',
  quickSet: false,
  async run({ args, log }) {
    const num = (name: string, d: number) => Number(option(args, name) ?? d);
    const o: Options = { engines: num('engines', 3), executors: num('executors', 3), runs: num('runs', 1000), spreadMs: num('spread-ms', 5000), handlerMs: num('handler-ms', 200), idleMs: num('idle-ms', 10_000) };
    const port = option(args, 'mariadb-port');
    const server = port === undefined ? null : PeerServer.start('mariadb', Number(port));
    let r: RunNowBurstResult;
    try {
      log(`run-now-burst: ${o.engines} engines, ${o.executors} + 1 executors, ${o.runs}-run burst over ${o.spreadMs} ms${server ? `, MariaDB on port ${server.port}` : ''}…`);
      r = await runCase(o, server?.url, log);
    } finally {
      server?.stop();
    }
    const rows = (['same', 'other'] as const).flatMap((who) =>
      PHASES.map((p) => {
        const f = r.figures[who][p];
        return [who === 'same' ? 'same tenant' : 'other tenant', p, f.start.n, f.start.p50, f.start.p90, f.start.p99, f.start.max, `${f.createdToDispatched.p50} / ${f.createdToDispatched.p99}`, `${f.dispatchedToStarted.p50} / ${f.dispatchedToStarted.p99}`];
      }),
    );
    console.log(
      `Run now during a burst — POST /api/tasks/:id/trigger → handler start (ms); ahead: before T (room held by runs sent ahead), running: T → the burst's last start\n${table(['tenant', 'phase', 'n', 'p50', 'p90', 'p99', 'max', 'created→dispatched p50/p99', 'dispatched→started p50/p99'], rows)}\n` +
        `p99 during − idle: same tenant ${r.p99Increase.same} ms, other tenant ${r.p99Increase.other} ms (target ≤ ${TARGET_MS}); burst start lateness p50/p99 ${r.burst.startLate.p50} / ${r.burst.startLate.p99} ms; triggers never started: ${r.missing}\n`,
    );
    writeResult(`run-now-burst${option(args, 'tag') ?? ''}.json`, { benchmark: 'run-now-burst', machine: machine(), mariadb: server ? `private, port ${server.port}` : 'shared', executorEnv: EXECUTOR_ENV, ...r });
    return (['same', 'other'] as const).map((who): [string, string] => [`run now in a burst, ${who} tenant`, `idle p99 ${r.figures[who].idle.start.p99} ms, during p99 +${r.p99Increase[who]} ms (target ≤ ${TARGET_MS})`]);
  },
};
