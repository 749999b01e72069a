import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { isTerminal, type RunState } from '@baton/domain';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { ExecutorEntity, RunEntity } from '@baton/persistence';
import type { DemoInvocationRecord } from '../../../apps/demo-executor/src';
import { openTestDatabase, type TestDatabase } from '../../support/databases';
import { runningProcesses, startDemoExecutor, startEngineProcess, startNodeProcess, stopAllProcesses, type EngineProcess, type ExecutorNode } from './processes';
import { seedTenant, type SeededTenant } from './seed';
import { acquireSuiteLock } from './suite-lock';
import { engineMetrics } from './engine-http';
import type { ExecutorCommand } from '../../protocol/executor-process';

/**
 * A cluster under test: a fresh migrated MariaDB database (one per test file), a tenant, and
 * engine and demo-executor OS processes on 127.0.0.1 ephemeral ports, all on that database.
 * `useCluster(name)` registers the hooks: beforeAll opens it (waiting for the machine-wide
 * cluster-suite lock first), afterAll stops every process it started — SIGTERM, then SIGKILL —
 * and drops the database, whether the tests passed or not. Logs of every process are written
 * under `dir`; it is kept (and its path printed) when a test failed, or with
 * BATON_KEEP_CLUSTER_LOGS=1.
 */

/** Engine environment of every cluster test unless a test says otherwise (fast heartbeats and takeover). */
export const ENGINE_TEST_ENV: Readonly<Record<string, string>> = {
  BATON_ENGINE_PORT: '0',
  BATON_HEARTBEAT_MS: '500',
  BATON_ENGINE_DEAD_AFTER_MS: '2500',
  BATON_LEASE_MS: '6000',
  BATON_WATCHDOG_INTERVAL_MS: '250',
};

/** Demo executor environment of every cluster test unless a test says otherwise. */
export const EXECUTOR_TEST_ENV: Readonly<Record<string, string>> = {
  BATON_EXECUTOR_APP: 'demo',
  BATON_EXECUTOR_PORT: '0',
  BATON_EXECUTOR_CONCURRENCY: '16',
  BATON_EXECUTOR_QUEUE_LIMIT: '2000',
  BATON_EXECUTOR_HEARTBEAT_MS: '1000',
  BATON_EXECUTOR_SHUTDOWN_GRACE_MS: '500',
  BATON_EXECUTOR_RETRY_BASE_MS: '100',
  BATON_EXECUTOR_RETRY_MAX_MS: '1000',
  BATON_BROKER_URL: '', // business alarms go through the engine (no direct broker publishing)
};

/** One line of a demo executor's record file, with the executor that wrote it. */
export interface InvocationRecord extends DemoInvocationRecord {
  executor: string;
}

export class Cluster {
  readonly engines: EngineProcess[] = [];
  readonly executors: ExecutorNode[] = [];
  tenant!: SeededTenant;
  private engineSeq = 0;
  private executorSeq = 0;

  private constructor(
    readonly name: string,
    readonly db: TestDatabase,
    readonly dir: string,
  ) {}

  /** `mysqlServerUrl`: a MariaDB server other than the test one (a benchmark restarting its own). */
  static async open(name: string, tenantId = 'acme', options: { mysqlServerUrl?: string } = {}): Promise<Cluster> {
    const db = await openTestDatabase('mysql', { mysqlServerUrl: options.mysqlServerUrl });
    const dir = mkdtempSync(join(tmpdir(), `baton-cluster-${name}-`));
    const cluster = new Cluster(name, db, dir);
    try {
      cluster.tenant = await seedTenant(db.dataSource, { id: tenantId, engineGroup: `g-${name}` });
    } catch (err) {
      await cluster.close(false).catch(() => undefined);
      throw err;
    }
    return cluster;
  }

  get ds(): DataSource {
    return this.db.dataSource;
  }

  /** Starts `count` engine nodes in parallel serving the tenant's engine group; waits for each ENGINE READY. */
  async startEngines(count: number, env: Record<string, string> = {}): Promise<EngineProcess[]> {
    const started = await Promise.all(
      Array.from({ length: count }, () => {
        const n = ++this.engineSeq;
        const name = `engine-${n}`;
        return startEngineProcess({
          name,
          logFile: join(this.dir, `${name}.log`),
          env: {
            BATON_DB_URL: this.db.url,
            BATON_ENGINE_ID: `${this.name}-e${n}`,
            BATON_ENGINE_GROUPS: this.tenant.engineGroup,
            ...ENGINE_TEST_ENV,
            ...env,
          },
        });
      }),
    );
    this.engines.push(...started);
    return started;
  }

  /**
   * Starts `count` nodes (`baton node`: a console and an engine in one process) serving the
   * tenant's engine group, on any free port; waits for each NODE READY. They count as engines:
   * executors started later heartbeat to them too.
   */
  async startNodes(count: number, env: Record<string, string> = {}): Promise<EngineProcess[]> {
    const started = await Promise.all(
      Array.from({ length: count }, () => {
        const n = ++this.engineSeq;
        const name = `node-${n}`;
        return startNodeProcess({
          name,
          logFile: join(this.dir, `${name}.log`),
          env: { BATON_DB_URL: this.db.url, BATON_CONSOLE_PORT: '0', BATON_HOST: '127.0.0.1', BATON_ENGINE_ID: `${this.name}-n${n}`, BATON_ENGINE_GROUPS: this.tenant.engineGroup, ...ENGINE_TEST_ENV, ...env },
        });
      }),
    );
    this.engines.push(...started);
    return started;
  }

  /**
   * Starts `count` demo executors (or, with `command`, another executor of the demo handlers) of the tenant (app `demo` unless env says otherwise), each with
   * its own spool and record file, heartbeating to every engine started so far; waits until
   * each is registered (an UP row in `executors`).
   */
  async startExecutors(count: number, env: Record<string, string> = {}, command?: (env: Record<string, string>) => ExecutorCommand): Promise<ExecutorNode[]> {
    const engineUrls = this.engines.filter((e) => e.alive).map((e) => e.url);
    if (engineUrls.length === 0) throw new Error('start the engines first: executors register by heartbeat to an engine');
    const started = await Promise.all(
      Array.from({ length: count }, () => {
        const n = ++this.executorSeq;
        const name = `executor-${n}`;
        return startDemoExecutor({
          name,
          command,
          recordFile: join(this.dir, `${name}.records.jsonl`),
          spoolFile: join(this.dir, `${name}.spool.jsonl`),
          logFile: join(this.dir, `${name}.log`),
          env: {
            BATON_TENANT: this.tenant.id,
            BATON_EXECUTOR_SECRET: this.tenant.executorSecret,
            BATON_ENGINE_URLS: engineUrls.join(','),
            ...EXECUTOR_TEST_ENV,
            ...env,
          },
        });
      }),
    );
    this.executors.push(...started);
    await waitFor(
      async () => {
        const rows = await this.ds.getRepository(ExecutorEntity).find({ where: { tenantId: this.tenant.id, state: 'UP' } });
        const up = new Set(rows.map((r) => r.url.replace(/\/+$/, '')));
        return started.every((e) => up.has(e.url.replace(/\/+$/, '')));
      },
      { timeoutMs: 20_000, what: `executors ${started.map((e) => e.url).join(', ')} registered UP` },
    );
    return started;
  }

  /**
   * Starts one demo executor of another tenant than the cluster's (`tenant`, seeded in the same
   * engine group), heartbeating to every engine started so far; waits until it is UP. Not one of
   * `executors`: read its records with `records([node])`.
   */
  async startExecutorOf(tenant: SeededTenant, name: string, env: Record<string, string> = {}): Promise<ExecutorNode> {
    const node = await startDemoExecutor({
      name,
      recordFile: join(this.dir, `${name}.records.jsonl`),
      spoolFile: join(this.dir, `${name}.spool.jsonl`),
      logFile: join(this.dir, `${name}.log`),
      env: { ...EXECUTOR_TEST_ENV, BATON_TENANT: tenant.id, BATON_EXECUTOR_SECRET: tenant.executorSecret, BATON_ENGINE_URLS: this.engines.filter((e) => e.alive).map((e) => e.url).join(','), ...env },
    });
    await waitFor(async () => (await this.ds.getRepository(ExecutorEntity).countBy({ tenantId: tenant.id, state: 'UP', url: node.url })) > 0, {
      timeoutMs: 20_000,
      what: `executor ${node.url} of ${tenant.id} registered UP`,
    });
    return node;
  }

  /** Every run of the tenant (optionally of some tasks), by id. */
  async runs(taskIds?: number[]): Promise<RunEntity[]> {
    const qb = this.ds.getRepository(RunEntity).createQueryBuilder('r').where('r.tenantId = :t', { t: this.tenant.id });
    if (taskIds) {
      if (taskIds.length === 0) return [];
      qb.andWhere('r.taskId IN (:...ids)', { ids: taskIds });
    }
    return qb.orderBy('r.id', 'ASC').getMany();
  }

  /** Run counts by state (optionally of some tasks). */
  async stateCounts(taskIds?: number[]): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const r of await this.runs(taskIds)) counts[r.state] = (counts[r.state] ?? 0) + 1;
    return counts;
  }

  /** Every handler invocation the executors recorded (optionally of some of them). */
  records(executors: ExecutorNode[] = this.executors): InvocationRecord[] {
    const all: InvocationRecord[] = [];
    for (const e of executors) {
      if (!existsSync(e.recordFile)) continue;
      for (const line of readFileSync(e.recordFile, 'utf8').split('\n')) {
        if (line.trim()) all.push({ ...(JSON.parse(line) as DemoInvocationRecord), executor: e.name });
      }
    }
    return all;
  }

  /**
   * Waits until nothing more can happen to the tenant's runs: every run is terminal, no live
   * engine holds a claimed run or a dispatch slot, and every UP executor has reported, by a
   * heartbeat after the last run ended, that nothing is in flight. Runs end in guarded updates
   * and their children are written in the transaction that ends them, so past this point a
   * duplicate invocation or a second child could only come from a bug: the observable signal
   * that replaces "sleep a while and see that nothing showed up".
   *
   * `runIds`: only these runs (a tenant with periodic tasks never has all of its runs ended):
   * they are terminal and every UP executor has since reported nothing in flight, so every
   * invocation of them that was ever sent is in the record files.
   */
  async settled(options: { runIds?: number[]; timeoutMs?: number } = {}): Promise<RunEntity[]> {
    const scope = options.runIds && new Set(options.runIds);
    return waitFor(
      async () => {
        const runs = (await this.runs()).filter((r) => !scope || scope.has(r.id));
        if (!runs.every((r) => isTerminal(r.state as RunState))) return undefined;
        if (!scope) {
          for (const engine of this.engines.filter((e) => e.alive)) {
            const m = await engineMetrics(engine.url);
            if ((m.get('baton_engine_runs_held') ?? 0) !== 0 || (m.get('baton_engine_slots_in_use') ?? 0) !== 0) return undefined;
          }
        }
        const lastEnd = Math.max(0, ...runs.map((r) => r.finishedAt ?? r.updatedAt));
        const executors = await this.ds.getRepository(ExecutorEntity).find({ where: { tenantId: this.tenant.id, state: 'UP' } });
        // Scoped (a tenant whose periodic tasks never all end): the executors may be busy with other runs;
        // a heartbeat after the scoped runs' last end is what says they reported everything of those.
        return executors.every((e) => (scope || e.inFlight === 0) && e.heartbeatAt > lastEnd) ? runs : undefined;
      },
      { timeoutMs: options.timeoutMs ?? 30_000, what: `the runs of ${this.tenant.id} settled (ended, nothing held, sent or in flight)`, detail: async () => JSON.stringify(await this.stateCounts()) },
    );
  }

  /** Stops every process (SIGTERM, SIGKILL after the grace), drops the database, removes `dir` unless kept. */
  async close(keepLogs: boolean): Promise<void> {
    await stopAllProcesses();
    const left = runningProcesses();
    if (left.length) console.error(`[cluster ${this.name}] still running after teardown: ${left.map((p) => `${p.name} pid ${p.pid}`).join(', ')}`);
    await this.db.close();
    if (keepLogs || process.env.BATON_KEEP_CLUSTER_LOGS === '1') console.log(`[cluster ${this.name}] process logs kept in ${this.dir}`);
    else rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Registers the hooks of a cluster test file; read `.cluster` inside tests. */
export function useCluster(name: string): { readonly cluster: Cluster } {
  let cluster: Cluster | undefined;
  let release: (() => void) | undefined;
  let failed = false;
  beforeAll(async () => {
    release = await acquireSuiteLock();
    cluster = await Cluster.open(name);
  }, 300_000);
  afterEach((ctx) => {
    if (ctx.task.result?.state === 'fail') failed = true;
  });
  afterAll(async () => {
    try {
      await cluster?.close(failed);
    } finally {
      cluster = undefined;
      release?.();
    }
  }, 60_000);
  return {
    get cluster() {
      if (!cluster) throw new Error('the cluster is not open (use it inside tests and hooks)');
      return cluster;
    },
  };
}

/** Polls `check` until it returns something truthy; fails naming `what` after `timeoutMs`. */
export async function waitFor<T>(
  check: () => Promise<T | false | null | undefined> | T | false | null | undefined,
  options: { timeoutMs: number; intervalMs?: number; what: string; detail?: () => Promise<string> | string },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) {
      const detail = options.detail ? `: ${await options.detail()}` : '';
      throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${options.what}${detail}`);
    }
    await sleep(options.intervalMs ?? 200);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
