import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import request from 'supertest';
import { io as connect, type Socket as ClientSocket } from 'socket.io-client';
import { DataSource } from 'typeorm';
import { createExecutorServer, type ExecutorOptions, type ExecutorServer } from '@baton/executor-sdk';
import type { AlarmMessage } from '@baton/messaging';
import { inTransaction, RunEntity } from '@baton/persistence';
import { buildDemoHandlers } from '../../../apps/demo-executor/src';
import { configureConsoleApp, ConsoleModule, type ConsoleModuleOptions } from '../../../apps/console/src';
import { Alarms, EngineModule, readEngineConfig, startEngine, type EngineConfig } from '../../../apps/engine/src';
import { seedTenant, type ConsoleTestApp, type SeededTenant } from '../../console/console-test-kit';

/**
 * The alarm pipeline under test, in this process unless said otherwise: an engine node
 * (EngineModule, its relay publishing to the real ActiveMQ), console(s) (ConsoleModule, the
 * gateway subscribed to the broker, socket.io on a real port), demo executors (the SDK), all on
 * one MySQL test database — as separate data sources and separate broker connections, like
 * separate processes. Browsers are socket.io-client sockets.
 *
 * Each stack uses its own topic prefix (`t<random>.alarms.`), so test files sharing the broker
 * never hear each other's alarms.
 */

export const ROOT = resolve(__dirname, '../../..');

/** A topic prefix of this stack alone. */
export function uniqueTopicPrefix(): string {
  return `t${randomBytes(4).toString('hex')}.alarms.`;
}

/** A tenant id of this run alone (slug). */
export function uniqueTenantId(name: string): string {
  return `${name}-${randomBytes(3).toString('hex')}`;
}

export interface EngineNode {
  app: INestApplication;
  url: string;
  config: EngineConfig;
  close(): Promise<void>;
}

/** An engine node on the database, publishing alarms to `brokerUrl` under `prefix`. Fast watchdog and loops. */
export async function startEngineNode(databaseUrl: string, brokerUrl: string, prefix: string, overrides: Partial<EngineConfig> = {}): Promise<EngineNode> {
  const config = readEngineConfig(
    {},
    {
      databaseUrl,
      nodeId: `alarm-test-${randomBytes(3).toString('hex')}`,
      host: '127.0.0.1',
      port: 0,
      brokerUrl,
      alarmTopicPrefix: prefix,
      watchdogIntervalMs: 100,
      claimIntervalMs: 50,
      planIntervalMs: 100,
      heartbeatMs: 500,
      ...overrides,
    },
  );
  const app = await NestFactory.create(EngineModule.forRoot({ config }), { bodyParser: false, logger: ['error', 'warn'], abortOnError: false });
  await app.listen(0, '127.0.0.1');
  const url = await startEngine(app);
  return { app, url, config, close: () => app.close() };
}

export interface ConsoleNode {
  url: string;
  app?: INestApplication;
  /** The test-kit view of it (REST calls with supertest). */
  t: ConsoleTestApp;
  close(): Promise<void>;
}

/** A console (REST + alarm gateway) in this process, subscribed to `brokerUrl` (or to `extra.alarmBus`). */
export async function startConsoleNode(databaseUrl: string, brokerUrl: string | null, prefix: string, extra: Partial<ConsoleModuleOptions> = {}): Promise<ConsoleNode> {
  const app = await NestFactory.create(ConsoleModule.forRoot({ databaseUrl, brokerUrl, alarmTopicPrefix: prefix, passwordHashRounds: 4, ...extra }), {
    bodyParser: false,
    logger: ['error', 'warn'],
    abortOnError: false,
  });
  configureConsoleApp(app, { swagger: false });
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { url, app, t: kitOf(url), close: () => app.close() };
}

export interface ConsoleProcess extends ConsoleNode {
  pid: number;
  child: ChildProcess;
  output(): string;
}

/**
 * A console as its own OS process: `node -r test/protocol/register-ts.cjs apps/console/src/main.ts`
 * (from source), configured by environment as in production; waits for `CONSOLE READY <url>`.
 * Stopped (SIGTERM, then SIGKILL) by close(); only this PID is ever signalled.
 */
export function startConsoleProcess(databaseUrl: string, brokerUrl: string, prefix: string, timeoutMs = 120_000): Promise<ConsoleProcess> {
  return new Promise((resolvePromise, reject) => {
    let out = '';
    const child = spawn(process.execPath, ['-r', resolve(ROOT, 'test/protocol/register-ts.cjs'), resolve(ROOT, 'apps/console/src/main.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        BATON_DB_URL: databaseUrl,
        BATON_BROKER_URL: brokerUrl,
        BATON_ALARM_TOPIC_PREFIX: prefix,
        BATON_CONSOLE_PORT: '0',
        BATON_HOST: '127.0.0.1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    // Last resort (the worker exits without teardown): this PID, and nothing else.
    const reap = () => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL');
    process.once('exit', reap);
    void exited.then(() => process.removeListener('exit', reap));
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`console process ${why}.\nOutput:\n${out}`));
    };
    const timer = setTimeout(() => fail(`printed no CONSOLE READY line within ${timeoutMs} ms`), timeoutMs);
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const ready = /^CONSOLE READY (\S+)\r?\n/m.exec(out);
      if (!ready || settled) return;
      settled = true;
      clearTimeout(timer);
      const url = ready[1];
      resolvePromise({
        url,
        t: kitOf(url),
        pid: child.pid!,
        child,
        output: () => out,
        close: async () => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          child.kill('SIGTERM');
          const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await exited;
          clearTimeout(killer);
        },
      });
    });
    void exited.then(() => fail('exited before CONSOLE READY'));
  });
}

function kitOf(url: string): ConsoleTestApp {
  return { http: () => request(url) } as unknown as ConsoleTestApp;
}

/** A tenant with logins (console-test-kit: `<id>-admin` / `<id>-viewer`, API keys), seeded through a console. */
export function seedAlarmTenant(console: ConsoleNode, ds: DataSource, id: string): Promise<SeededTenant> {
  return seedTenant(console.t, ds, id);
}

/** A demo executor (the SDK) of a tenant; `brokerUrl` set = direct alarms. */
export async function startExecutor(
  tenant: { id: string },
  engineUrl: string,
  options: Partial<ExecutorOptions> = {},
): Promise<{ url: string; server: ExecutorServer; stop(): Promise<void> }> {
  const executor = createExecutorServer({
    tenantId: tenant.id,
    secret: `secret-${tenant.id}`, // console-test-kit's seedTenant
    app: 'demo',
    handlers: buildDemoHandlers(),
    engineUrls: [engineUrl],
    spoolFile: false,
    heartbeatIntervalMs: 200,
    progressIntervalMs: 0,
    logger: false,
    ...options,
  });
  const url = await executor.start();
  return { url, server: executor, stop: () => executor.stop() };
}

/** A browser: a socket.io client logged in as a tenant user, recording `alarm` events with their arrival time. */
export interface Browser {
  socket: ClientSocket;
  alarms: AlarmMessage[];
  arrivedAt: Map<string, number>;
  acked: unknown[];
  close(): void;
}

export async function openBrowser(consoleUrl: string, auth: { token?: string; apiKey?: string }): Promise<Browser> {
  const socket = connect(consoleUrl, { auth, transports: ['websocket'], reconnection: false, forceNew: true });
  const b: Browser = { socket, alarms: [], arrivedAt: new Map(), acked: [], close: () => socket.disconnect() };
  socket.on('alarm', (a: AlarmMessage) => {
    b.arrivedAt.set(a.id, Date.now());
    b.alarms.push(a);
  });
  socket.on('alarm:acked', (a: unknown) => b.acked.push(a));
  await new Promise<void>((resolveConnect, reject) => {
    socket.once('connect', () => resolveConnect());
    socket.once('connect_error', (err) => reject(err));
  });
  return b;
}

/** The session token in a console-test-kit credentials header. */
export function tokenOf(credentials: Record<string, string>): string {
  return credentials.Authorization.replace(/^Bearer /, '');
}

/** Polls `check` until it returns a truthy value (or fails after `timeoutMs`). */
export async function waitFor<T>(check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs: number, what: string): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const FENCE = 'fence alarm';
let fences = 0;

/**
 * "Nothing more is coming" as a signal instead of a sleep: for each group in turn, raises one
 * alarm of the tenant through the engine's outbox and waits until every browser of the group has
 * it. The relay publishes in outbox order, the broker delivers a topic in order, and a console
 * emits to each socket in order, so whatever the pipe had sent before — a repeat, an alarm or ack
 * routed to the wrong tenant — has reached those browsers by then. Fence alarms are told apart by
 * isFence.
 */
export async function fence(engine: EngineNode, groups: Array<[tenantId: string, browsers: Browser[]]>): Promise<void> {
  const alarms = engine.app.get(Alarms);
  const ds = engine.app.get(DataSource);
  for (const [tenantId, browsers] of groups) {
    const message = `${FENCE} ${++fences}`;
    await inTransaction(ds, (em) => alarms.raise(em, { tenantId, type: 'EXECUTOR_DOWN', message, now: Date.now() }));
    await waitFor(() => browsers.every((b) => b.alarms.some((a) => a.message === message)), 30_000, `the fence alarm of ${tenantId} at its browsers`);
  }
}

export const isFence = (a: AlarmMessage): boolean => a.message.startsWith(FENCE);

/** Creates a MANUAL task through the console REST API and triggers it; returns the run id. */
export async function createAndTrigger(console: ConsoleNode, admin: Record<string, string>, task: Record<string, unknown>): Promise<{ taskId: number; runId: number }> {
  const created = await console.t.http().post('/api/tasks').set(admin).send({ executorApp: 'demo', trigger: { kind: 'MANUAL' }, ...task });
  if (created.status !== 201) throw new Error(`create task: ${created.status} ${JSON.stringify(created.body)}`);
  const run = await console.t.http().post(`/api/tasks/${created.body.id}/trigger`).set(admin).send({});
  if (run.status !== 201 && run.status !== 200) throw new Error(`trigger: ${run.status} ${JSON.stringify(run.body)}`);
  return { taskId: created.body.id, runId: run.body.id };
}

export async function runRow(ds: DataSource, id: number): Promise<RunEntity> {
  return ds.getRepository(RunEntity).findOneByOrFail({ id });
}

/** p-th percentile (nearest rank) of the values. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
