import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import * as bcrypt from 'bcryptjs';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import type { Role } from '@baton/domain';
import {
  AlarmEntity,
  ApiKeyEntity,
  EngineGroupEntity,
  ExecutorEntity,
  RunApprovalEntity,
  RunEntity,
  RunLogEntity,
  TenantEntity,
  UserEntity,
} from '@baton/persistence';
import { configureConsoleApp, ConsoleModule, ManualClock, type ConsoleModuleOptions } from '../../apps/console/src';
import { newApiKey } from '../../apps/console/src/common/secrets';

/** 2026-03-01T00:00:00Z: tests run at a fixed "now". */
export const T0 = Date.UTC(2026, 2, 1);

export interface ConsoleTestApp {
  app: INestApplication;
  clock: ManualClock;
  http: () => ReturnType<typeof request>;
  close(): Promise<void>;
}

/** The console on a test database, as an embedding app would mount it. */
export async function startConsole(dataSource: DataSource, now = T0, options: Omit<ConsoleModuleOptions, 'dataSource' | 'clock'> = {}): Promise<ConsoleTestApp> {
  const clock = new ManualClock(now);
  // NestFactory rather than @nestjs/testing's Test.createTestingModule: the latter is not a
  // dependency of the project, and the console takes its test doubles (clock) as options anyway.
  const app = await NestFactory.create(ConsoleModule.forRoot({ passwordHashRounds: 4, ...options, dataSource, clock }), {
    bodyParser: false,
    logger: ['error'],
    abortOnError: false,
  });
  configureConsoleApp(app);
  await app.init();
  return {
    app,
    clock,
    http: () => request(app.getHttpServer()),
    close: () => app.close(),
  };
}

export type Credentials = Record<string, string>;

export interface SeededTenant {
  id: string;
  admin: Credentials;
  viewer: Credentials;
  adminKey: Credentials;
  viewerKey: Credentials;
}

const PASSWORD_HASH = bcrypt.hashSync('password-123', 4);

async function ensureGroup(ds: DataSource, name: string): Promise<void> {
  if (!(await ds.getRepository(EngineGroupEntity).existsBy({ name }))) {
    await ds.getRepository(EngineGroupEntity).insert({ name, description: '', createdAt: T0 });
  }
}

/** Inserts a user with the password `password-123`; returns its id. */
export async function insertUser(ds: DataSource, username: string, role: Role, tenantId: string | null): Promise<number> {
  const { identifiers } = await ds.getRepository(UserEntity).insert({ username, role, tenantId, loginTenant: tenantId ?? '', passwordHash: PASSWORD_HASH, createdAt: T0 });
  return identifiers[0].id as number;
}

/** Logs `who` in: `tenant/username` for a tenant's user, `username` for an operator. */
export async function login(t: ConsoleTestApp, who: string, password = 'password-123'): Promise<Credentials> {
  const [tenant, username] = who.includes('/') ? who.split('/') : [undefined, who];
  const res = await t.http().post('/api/auth/login').send({ tenant, username, password });
  if (res.status !== 200) throw new Error(`login ${who}: ${res.status} ${JSON.stringify(res.body)}`);
  return { Authorization: `Bearer ${res.body.token}` };
}

/** An API key owned by `ownerUserId`; without it, a key made before keys recorded their owner. */
export async function insertApiKey(ds: DataSource, tenantId: string, role: Role, ownerUserId: number | null = null): Promise<Credentials> {
  const { key, prefix, hash } = newApiKey();
  await ds.getRepository(ApiKeyEntity).insert({ tenantId, name: `${tenantId}-${role}`, role, ownerUserId, prefix, keyHash: hash, createdAt: T0, revokedAt: null });
  return { 'X-API-Key': key };
}

/** A tenant with an admin and a viewer (sessions) and an admin and a viewer API key (the admin's). */
export async function seedTenant(t: ConsoleTestApp, ds: DataSource, id: string): Promise<SeededTenant> {
  await ensureGroup(ds, 'default');
  await ds.getRepository(TenantEntity).insert({
    id,
    name: `Tenant ${id}`,
    engineGroup: 'default',
    executorSecret: `secret-${id}`,
    ratePerSec: 1000,
    burst: 2000,
    createdAt: T0,
  });
  const adminId = await insertUser(ds, `${id}-admin`, 'TENANT_ADMIN', id);
  await insertUser(ds, `${id}-viewer`, 'TENANT_VIEWER', id);
  return {
    id,
    admin: await login(t, `${id}/${id}-admin`),
    viewer: await login(t, `${id}/${id}-viewer`),
    adminKey: await insertApiKey(ds, id, 'TENANT_ADMIN', adminId),
    viewerKey: await insertApiKey(ds, id, 'TENANT_VIEWER', adminId),
  };
}

export async function seedOperator(t: ConsoleTestApp, ds: DataSource, username = 'operator'): Promise<Credentials> {
  await insertUser(ds, username, 'OPERATOR', null);
  return login(t, username);
}

/** Rows the API cannot create (the engine writes them): a run with a log line, an alarm, an executor. */
export async function insertRun(
  ds: DataSource,
  tenantId: string,
  taskId: number,
  overrides: Partial<RunEntity> = {},
): Promise<RunEntity> {
  const repo = ds.getRepository(RunEntity);
  const scheduledAt = overrides.scheduledAt ?? T0 - 60_000;
  const row = repo.create({
    tenantId,
    taskId,
    engineGroup: 'default',
    state: 'PENDING',
    cause: 'SCHEDULE',
    fireKey: `s:${scheduledAt}:${Math.random().toString(36).slice(2)}`,
    flowId: null,
    parentRunId: null,
    attempt: 1,
    priority: 0,
    params: {},
    scheduledAt,
    dueAt: scheduledAt,
    claimedBy: null,
    leaseUntil: null,
    executorId: null,
    dispatchedAt: null,
    acceptedAt: null,
    startedAt: null,
    finishedAt: null,
    result: null,
    error: null,
    progress: null,
    createdAt: scheduledAt,
    updatedAt: scheduledAt,
    ...overrides,
  });
  await repo.insert(row);
  return row;
}

/** A run waiting for approval (as the engine writes one when an edge with an approval step fires it) and its approval row. */
export async function insertWaitingRun(ds: DataSource, tenantId: string, taskId: number, gate: Pick<RunApprovalEntity, 'role' | 'users'>): Promise<RunEntity> {
  const run = await insertRun(ds, tenantId, taskId, { state: 'APPROVAL_WAIT', cause: 'DEPENDENCY' });
  await ds.getRepository(RunApprovalEntity).insert({ runId: run.id, tenantId, ...gate, onTimeout: 'REJECT', deadlineAt: T0 + 86_400_000, dueAt: T0 + 86_400_000, decision: null, decidedBy: null, decidedAt: null, comment: null, createdAt: T0 });
  return run;
}

export async function insertRunLog(ds: DataSource, run: RunEntity, message: string): Promise<void> {
  await ds.getRepository(RunLogEntity).insert({ tenantId: run.tenantId, runId: run.id, attempt: 1, at: T0, level: 'INFO', message });
}

export async function insertAlarm(ds: DataSource, tenantId: string, overrides: Partial<AlarmEntity> = {}): Promise<AlarmEntity> {
  const repo = ds.getRepository(AlarmEntity);
  const row = repo.create({
    tenantId,
    type: 'FAILED',
    severity: 'CRITICAL',
    taskId: null,
    runId: null,
    executorId: null,
    message: 'run failed',
    data: null,
    count: 1,
    raisedAt: T0 - 1000,
    publishedAt: null,
    ackedAt: null,
    ackedBy: null,
    ...overrides,
  });
  await repo.insert(row);
  return row;
}

export async function insertExecutor(ds: DataSource, tenantId: string, app = 'billing'): Promise<ExecutorEntity> {
  const repo = ds.getRepository(ExecutorEntity);
  const row = repo.create({
    tenantId,
    app,
    url: `http://127.0.0.1:9${Math.floor(Math.random() * 900 + 100)}/${tenantId}`,
    capacity: 8,
    inFlight: 0,
    state: 'UP',
    registeredAt: T0,
    heartbeatAt: T0,
  });
  await repo.insert(row);
  return row;
}

/** Row counts of the tables a request may write, to prove a refused request wrote nothing. */
export async function rowCounts(ds: DataSource): Promise<Record<string, number>> {
  const tables = ['tasks', 'runs', 'task_dependencies', 'calendars', 'api_keys', 'users', 'tenants', 'engine_groups', 'alarms'];
  const out: Record<string, number> = {};
  for (const table of tables) {
    const [row] = await ds.query(`SELECT COUNT(*) AS n FROM ${ds.driver.escape(table)}`);
    out[table] = Number(row.n);
  }
  return out;
}

/** A valid cron task body. */
export function cronTask(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    executorApp: 'billing',
    handler: 'closeDay',
    trigger: { kind: 'CRON', expression: '0 0 2 * * *', timeZone: 'Europe/Berlin' },
    params: { region: 'eu' },
    ...extra,
  };
}

/** Puts the console's HTTP server on an ephemeral loopback port (socket.io clients need a real one), once; its base URL. */
export async function listenOnLoopback(t: ConsoleTestApp): Promise<string> {
  const server = t.app.getHttpServer() as import('node:http').Server;
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}`;
}
