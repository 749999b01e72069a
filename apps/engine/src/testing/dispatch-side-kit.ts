import 'reflect-metadata';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication, Type } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { DataSource } from 'typeorm';
import { systemClock, type Clock, type ConcurrencyPolicy, type RunState, type TriggerKind } from '@baton/domain';
import { DatabaseModule } from '@baton/persistence';
import { sign, verify } from '@baton/protocol';
import type { ClaimedRun } from '../common/claimed-run';
import { readEngineConfig, type EngineConfig } from '../config/engine-config';
import { eventually } from './eventually';
import { EngineCoreModule } from '../engine-core.module';
import { EngineMetrics } from '../metrics/engine-metrics';
import { CallbacksModule } from '../callbacks/callbacks.module';
import { DispatchModule } from '../dispatch/dispatch.module';
import { ExecutorsModule } from '../executors/executors.module';
import { WatchdogModule } from '../watchdog/watchdog.module';
import { WakeupsModule } from '../wakeups/wakeups.module';
import { ExecutorRegistry } from '../executors/executor-registry';
import { aClaimedRun } from './claimed-run-fixture';

/**
 * Test kit of the engine's dispatch side: the four modules mounted in a small Nest app on a test
 * database (no EngineModule, no claim side), seed helpers writing rows directly, a FAKE executor
 * (a real HTTP server that verifies signatures and answers as told) and signed requests.
 */

export const NODE_ID = 'node-test';
export const TENANT = 'acme';
export const SECRET = 'acme-executor-secret';
export const GROUP = 'default';

export interface DispatchSideApp {
  app: INestApplication;
  url: string;
  config: EngineConfig;
  metrics: EngineMetrics;
  get<T>(type: Type<T>): T;
  /** Re-reads the executor routing table (after seeding executors). */
  refreshRegistry(): Promise<void>;
  close(): Promise<void>;
}

export async function startDispatchSide(
  dataSource: DataSource,
  overrides: Partial<EngineConfig> = {},
  options: { clock?: Clock; rawBody?: boolean } = {},
): Promise<DispatchSideApp> {
  const config = readEngineConfig(
    {},
    {
      nodeId: NODE_ID,
      groups: [GROUP],
      host: '127.0.0.1',
      port: 0,
      dispatchTimeoutMs: 2_000,
      watchdogIntervalMs: 60_000,
      routing: 'FAILOVER',
      ...overrides,
    },
  );
  const metrics = new EngineMetrics({ defaultMetrics: false });
  @Module({
    imports: [
      DatabaseModule.forRoot({ dataSource }),
      EngineCoreModule.forRoot(config, options.clock ?? systemClock, metrics),
      DispatchModule,
      CallbacksModule,
      ExecutorsModule,
      WatchdogModule,
      WakeupsModule,
    ],
  })
  class DispatchSideTestModule {}
  const rawBody = options.rawBody ?? true;
  const app = await NestFactory.create(DispatchSideTestModule, {
    logger: ['error'],
    abortOnError: false,
    ...(rawBody ? { rawBody: true } : { bodyParser: false }),
  });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  config.publicUrl = url;
  return {
    app,
    url,
    config,
    metrics,
    get: (type) => app.get(type),
    refreshRegistry: () => app.get(ExecutorRegistry).refresh(),
    close: () => app.close(),
  };
}

// ---------------------------------------------------------------- seeding

export async function seedTenant(
  ds: DataSource,
  tenant: { id?: string; secret?: string; ratePerSec?: number; burst?: number; group?: string; executorNetworks?: string[] | null } = {},
): Promise<void> {
  const group = tenant.group ?? GROUP;
  const groups = (await ds.query(`SELECT name FROM engine_groups WHERE name = ?`, [group])) as unknown[];
  if (groups.length === 0) await ds.query(`INSERT INTO engine_groups (name, description, created_at) VALUES (?, '', 0)`, [group]);
  await ds.query(`INSERT INTO tenants (id, name, engine_group, executor_secret, rate_per_sec, burst, executor_networks, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 0)`, [
    tenant.id ?? TENANT,
    tenant.id ?? TENANT,
    group,
    tenant.secret ?? SECRET,
    tenant.ratePerSec ?? 1000,
    tenant.burst ?? 2000,
    tenant.executorNetworks ? JSON.stringify(tenant.executorNetworks) : null,
  ]);
}

export interface TaskSeed {
  tenantId?: string;
  name: string;
  executorApp?: string;
  handler?: string;
  triggerKind?: TriggerKind;
  intervalMs?: number | null;
  nextFireAt?: number | null;
  fireCount?: number;
  concurrencyPolicy?: ConcurrencyPolicy;
  timeoutMs?: number;
  startDeadlineMs?: number;
  retryMaxAttempts?: number;
  retryBackoffBaseMs?: number;
  priority?: number;
  paused?: boolean;
  alarmTypes?: string[];
  /** tasks.alarm_silence_ms. Default 0 (every alarm its own row), so each test sees each alarm. */
  alarmSilenceMs?: number;
  params?: unknown;
}

export interface SeededTask {
  id: number;
  seed: Required<Omit<TaskSeed, 'nextFireAt' | 'intervalMs' | 'alarmTypes' | 'alarmSilenceMs'>> & { intervalMs: number | null };
}

export async function seedTask(ds: DataSource, input: TaskSeed): Promise<SeededTask> {
  const seed = {
    tenantId: TENANT,
    executorApp: 'billing',
    handler: 'charge',
    triggerKind: 'MANUAL' as TriggerKind,
    intervalMs: null as number | null,
    fireCount: 0,
    concurrencyPolicy: 'ALLOW' as ConcurrencyPolicy,
    timeoutMs: 60_000,
    startDeadlineMs: 10_000,
    retryMaxAttempts: 1,
    retryBackoffBaseMs: 1_000,
    priority: 0,
    paused: false,
    params: { amount: 5 },
    ...input,
  };
  const alarmTypes = input.alarmTypes ?? ['START_LATE', 'TIMEOUT', 'FAILED', 'RETRYING', 'EXECUTOR_DOWN', 'EXECUTOR_UP', 'ENGINE_DOWN', 'DISPATCH_REJECTED', 'BUSINESS'];
  await ds.query(
    `INSERT INTO tasks (tenant_id, engine_group, name, group_name, executor_app, handler, params, trigger_kind, interval_ms,
        fire_count, misfire_policy, misfire_threshold_ms, priority, concurrency_policy, timeout_ms, start_deadline_ms,
        retry_max_attempts, retry_backoff_base_ms, retry_backoff_max_ms, retry_jitter_permille, alarm_types, alarm_silence_ms,
        paused, next_fire_at, created_at, updated_at, version)
     VALUES (?, ?, ?, 'default', ?, ?, ?, ?, ?, ?, 'FIRE_ONCE_NOW', 5000, ?, ?, ?, ?, ?, ?, 60000, 0, ?, ?, ?, ?, 0, 0, 1)`,
    [
      seed.tenantId,
      GROUP,
      seed.name,
      seed.executorApp,
      seed.handler,
      JSON.stringify(seed.params),
      seed.triggerKind,
      seed.intervalMs,
      seed.fireCount,
      seed.priority,
      seed.concurrencyPolicy,
      seed.timeoutMs,
      seed.startDeadlineMs,
      seed.retryMaxAttempts,
      seed.retryBackoffBaseMs,
      JSON.stringify(alarmTypes),
      input.alarmSilenceMs ?? 0,
      seed.paused ? 1 : 0,
      input.nextFireAt ?? null,
    ],
  );
  const [{ id }] = (await ds.query(`SELECT id FROM tasks WHERE tenant_id = ? AND name = ?`, [seed.tenantId, seed.name])) as Array<{ id: number }>;
  return { id: Number(id), seed };
}

export interface RunSeed {
  state?: RunState;
  claimedBy?: string | null;
  attempt?: number;
  scheduledAt?: number;
  dueAt?: number;
  /** runs.instant_at: set when a dispatch back-off moved dueAt past the instant. */
  instantAt?: number | null;
  /** runs.late_from_at; default: a retry's instant (instantAt, else dueAt), as retryRunAttempt writes it; null on attempt 1. */
  lateFromAt?: number | null;
  flowId?: number | 'self' | null;
  parentRunId?: number | null;
  executorId?: number | null;
  cause?: 'SCHEDULE' | 'MANUAL' | 'DEPENDENCY';
  fireKey?: string;
  dispatchedAt?: number | null;
  acceptedAt?: number | null;
  deadlineAt?: number | null;
  leaseUntil?: number | null;
  startedAt?: number | null;
  finishedAt?: number | null;
}

let fireKeys = 0;

export async function seedRun(ds: DataSource, task: SeededTask, input: RunSeed = {}): Promise<number> {
  const now = Date.now();
  const fireKey = input.fireKey ?? `m:test-${process.pid}-${++fireKeys}`;
  const state = input.state ?? 'CLAIMED';
  await ds.query(
    `INSERT INTO runs (tenant_id, task_id, engine_group, state, cause, fire_key, flow_id, parent_run_id, attempt, priority, params,
        scheduled_at, due_at, instant_at, late_from_at, claimed_by, lease_until, executor_id, dispatched_at, accepted_at, deadline_at, started_at, finished_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      task.seed.tenantId,
      task.id,
      GROUP,
      state,
      input.cause ?? 'MANUAL',
      fireKey,
      input.parentRunId ?? null,
      input.attempt ?? 1,
      task.seed.priority,
      JSON.stringify(task.seed.params),
      input.scheduledAt ?? now,
      input.dueAt ?? input.scheduledAt ?? now,
      input.instantAt ?? null,
      input.lateFromAt !== undefined ? input.lateFromAt : (input.attempt ?? 1) > 1 ? (input.instantAt ?? input.dueAt ?? input.scheduledAt ?? now) : null,
      input.claimedBy === undefined ? (state === 'CLAIMED' || state === 'DISPATCHED' ? NODE_ID : null) : input.claimedBy,
      input.leaseUntil ?? (state === 'CLAIMED' ? now + 15_000 : null),
      input.executorId ?? null,
      input.dispatchedAt ?? null,
      input.acceptedAt ?? null,
      input.deadlineAt ?? null,
      input.startedAt ?? null,
      input.finishedAt ?? null,
      now,
      now,
    ],
  );
  const [{ id }] = (await ds.query(`SELECT id FROM runs WHERE task_id = ? AND fire_key = ?`, [task.id, fireKey])) as Array<{ id: number }>;
  const runId = Number(id);
  const flowId = input.flowId === undefined || input.flowId === 'self' ? runId : input.flowId;
  if (flowId !== null) await ds.query(`UPDATE runs SET flow_id = ? WHERE id = ?`, [flowId, runId]);
  return runId;
}

/** The ClaimedRun the claim side would hand over for a seeded CLAIMED run. */
export function claimedRunOf(task: SeededTask, runId: number, overrides: Partial<ClaimedRun> = {}): ClaimedRun {
  const now = Date.now();
  return aClaimedRun(runId, now, {
    tenantId: task.seed.tenantId,
    taskId: task.id,
    taskName: task.seed.name,
    engineGroup: GROUP,
    priority: task.seed.priority,
    params: task.seed.params,
    executorApp: task.seed.executorApp,
    handler: task.seed.handler,
    timeoutMs: task.seed.timeoutMs,
    startDeadlineMs: task.seed.startDeadlineMs,
    concurrencyPolicy: task.seed.concurrencyPolicy,
    retry: { maxAttempts: task.seed.retryMaxAttempts, backoffBaseMs: task.seed.retryBackoffBaseMs, backoffMaxMs: 60_000, jitter: 0 },
    // Never deferred: its instant is its due time, unless the test says otherwise.
    instant: overrides.dueAt ?? now,
    lateFrom: overrides.dueAt ?? now,
    ...overrides,
  });
}

export async function seedExecutor(
  ds: DataSource,
  input: { url: string; app?: string; tenantId?: string; state?: 'UP' | 'DOWN'; capacity?: number; inFlight?: number; heartbeatAt?: number; protocolVersion?: number },
): Promise<number> {
  const now = Date.now();
  await ds.query(
    `INSERT INTO executors (tenant_id, app, url, capacity, in_flight, state, registered_at, heartbeat_at, protocol_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [input.tenantId ?? TENANT, input.app ?? 'billing', input.url, input.capacity ?? 8, input.inFlight ?? 0, input.state ?? 'UP', now, input.heartbeatAt ?? now, input.protocolVersion ?? 1],
  );
  const [{ id }] = (await ds.query(`SELECT id FROM executors WHERE tenant_id = ? AND app = ? AND url = ?`, [
    input.tenantId ?? TENANT,
    input.app ?? 'billing',
    input.url,
  ])) as Array<{ id: number }>;
  return Number(id);
}

// ---------------------------------------------------------------- reading

export interface RunRow {
  id: number;
  state: RunState;
  attempt: number;
  claimedBy: string | null;
  executorId: number | null;
  dueAt: number;
  dispatchedAt: number | null;
  acceptedAt: number | null;
  startedAt: number | null;
  finishedAt: number | null;
  finishedClock: string | null;
  deadlineAt: number | null;
  lateAlarmedAt: number | null;
  result: unknown;
  error: string | null;
  progress: number | null;
  cause: string;
  fireKey: string;
  flowId: number | null;
  parentRunId: number | null;
  taskId: number;
}

const n = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export async function readRun(ds: DataSource, id: number): Promise<RunRow> {
  const rows = (await ds.query(`SELECT * FROM runs WHERE id = ?`, [id])) as Array<Record<string, unknown>>;
  if (rows.length === 0) throw new Error(`no run ${id}`);
  return toRunRow(rows[0]);
}

export async function runsOfTask(ds: DataSource, taskId: number): Promise<RunRow[]> {
  const rows = (await ds.query(`SELECT * FROM runs WHERE task_id = ? ORDER BY id`, [taskId])) as Array<Record<string, unknown>>;
  return rows.map(toRunRow);
}

function toRunRow(r: Record<string, unknown>): RunRow {
  return {
    id: Number(r.id),
    state: r.state as RunState,
    attempt: Number(r.attempt),
    claimedBy: (r.claimed_by as string | null) ?? null,
    executorId: n(r.executor_id),
    dueAt: Number(r.due_at),
    dispatchedAt: n(r.dispatched_at),
    acceptedAt: n(r.accepted_at),
    startedAt: n(r.started_at),
    finishedAt: n(r.finished_at),
    finishedClock: (r.finished_clock as string | null) ?? null,
    deadlineAt: n(r.deadline_at),
    lateAlarmedAt: n(r.late_alarmed_at),
    result: typeof r.result === 'string' ? JSON.parse(r.result) : null,
    error: (r.error as string | null) ?? null,
    progress: n(r.progress),
    cause: String(r.cause),
    fireKey: String(r.fire_key),
    flowId: n(r.flow_id),
    parentRunId: n(r.parent_run_id),
    taskId: Number(r.task_id),
  };
}

export interface AlarmRow {
  type: string;
  severity: string;
  taskId: number | null;
  runId: number | null;
  executorId: number | null;
  message: string;
  publishedAt: number | null;
  /** Repeats counted into it (the silence window), itself included. */
  count: number;
}

export async function alarms(ds: DataSource, type?: string): Promise<AlarmRow[]> {
  const rows = (await ds.query(`SELECT * FROM alarms ${type ? 'WHERE type = ?' : ''} ORDER BY id`, type ? [type] : [])) as Array<Record<string, unknown>>;
  return rows.map((r) => ({
    type: String(r.type),
    severity: String(r.severity),
    taskId: n(r.task_id),
    runId: n(r.run_id),
    executorId: n(r.executor_id),
    message: String(r.message),
    publishedAt: n(r.published_at),
    count: Number(r.count),
  }));
}

export { eventually };

export async function runInState(ds: DataSource, id: number, state: RunState): Promise<RunRow> {
  return eventually(async () => {
    const run = await readRun(ds, id);
    return run.state === state ? run : undefined;
  }, `run ${id} in ${state}`);
}

// ---------------------------------------------------------------- signed requests

let lastSignedAt = 0;

/**
 * A signing instant no earlier request of this process had: the engine refuses a signature it
 * has already accepted (its replay guard lives as long as the engine, across tests), and two
 * equal bodies signed in one millisecond have one signature.
 */
function nextSignedAt(): number {
  lastSignedAt = Math.max(Date.now(), lastSignedAt + 1);
  return lastSignedAt;
}

/** POSTs `payload` signed for the tenant, at its own instant unless `now` says which. */
export async function signedPost(
  baseUrl: string,
  path: string,
  payload: unknown,
  options: { tenantId?: string; secret?: string; now?: number; headers?: Record<string, string>; rawBody?: string } = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Record<string, string> }> {
  const body = options.rawBody ?? JSON.stringify(payload);
  const headers = options.headers ?? {
    ...sign(options.secret ?? SECRET, options.tenantId ?? TENANT, 'POST', path, body, options.now ?? nextSignedAt()),
    'content-type': 'application/json',
  };
  const res = await fetch(baseUrl + path, { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: headers as Record<string, string> };
}

// ---------------------------------------------------------------- the fake executor

export interface ExecutorRequest {
  path: string;
  body: Record<string, unknown>;
  /** The signature verified with the tenant secret. */
  signatureOk: boolean;
  at: number;
}

export type ExecutorBehaviour = (req: ExecutorRequest) => { status: number; body?: unknown; delayMs?: number };

/**
 * A real HTTP executor on 127.0.0.1:0 standing in for the SDK's wrapper: verifies each request's
 * signature with the tenant secret (401 when wrong), records it, and answers as `behaviour`
 * says (default: 202 to a dispatch, 202 to an abort).
 */
export class FakeExecutor {
  readonly requests: ExecutorRequest[] = [];
  behaviour: ExecutorBehaviour = (req) =>
    req.path.endsWith('/abort') ? { status: 202, body: { aborted: true } } : { status: 202, body: { accepted: true, runId: req.body.runId, attempt: req.body.attempt } };
  private server: Server | null = null;
  url = '';

  constructor(private readonly secret = SECRET) {}

  get dispatches(): ExecutorRequest[] {
    return this.requests.filter((r) => r.path === '/baton/runs');
  }

  get aborts(): ExecutorRequest[] {
    return this.requests.filter((r) => r.path.endsWith('/abort'));
  }

  answer(status: number, body: unknown = {}): void {
    this.behaviour = () => ({ status, body });
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = null;
  }

  reset(): void {
    this.requests.length = 0;
    this.behaviour = new FakeExecutor().behaviour;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '').split('?')[0];
    const signatureOk = verify(this.secret, req.headers as Record<string, string>, req.method ?? 'POST', path, text, Date.now()).ok;
    const request: ExecutorRequest = { path, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, signatureOk, at: Date.now() };
    this.requests.push(request);
    const answer = signatureOk ? this.behaviour(request) : { status: 401, body: { accepted: false, reason: 'UNAUTHORIZED', message: 'bad signature' } };
    if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer.body ?? {}));
  }
}
