import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createExecutorServer, type ExecutorOptions, type ExecutorServer } from '@baton/executor-sdk';
import type { FakeEngine } from './fake-engine';

/** Options fast enough for tests: small backoffs and intervals, a private spool, silent logger. */
export function testExecutorOptions(engine: FakeEngine, dir: string, overrides: Partial<ExecutorOptions> = {}): ExecutorOptions {
  return {
    tenantId: engine.tenantId,
    secret: engine.secret,
    app: 'test-app',
    engineUrls: [engine.url],
    handlers: [],
    spoolFile: join(dir, 'spool.jsonl'),
    callbackRetry: { baseMs: 10, maxMs: 40 },
    heartbeatIntervalMs: 1000,
    shutdownGraceMs: 2000,
    shutdownFlushMs: 500,
    abortGraceMs: 1000,
    progressIntervalMs: 20,
    requestTimeoutMs: 2000,
    logger: false,
    ...overrides,
  };
}

/** Tracks executors and temp dirs made by a test file; `cleanup()` in afterEach. */
export class ExecutorHarness {
  private readonly servers: ExecutorServer[] = [];
  private readonly dirs: string[] = [];

  tempDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'baton-sdk-'));
    this.dirs.push(dir);
    return dir;
  }

  /** Creates (does not start) an executor server against the fake engine. */
  create(engine: FakeEngine, overrides: Partial<ExecutorOptions> = {}, dir = this.tempDir()): ExecutorServer {
    const server = createExecutorServer(testExecutorOptions(engine, dir, overrides));
    this.servers.push(server);
    return server;
  }

  /** Creates and starts an executor server against the fake engine. */
  async start(engine: FakeEngine, overrides: Partial<ExecutorOptions> = {}, dir = this.tempDir()): Promise<ExecutorServer & { url: string }> {
    const server = this.create(engine, overrides, dir);
    await server.start();
    return server as ExecutorServer & { url: string };
  }

  async cleanup(): Promise<void> {
    await Promise.all(this.servers.splice(0).map((s) => s.stop().catch(() => undefined)));
    for (const dir of this.dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  }
}

/** A promise with its resolve function outside: `gate.open()` lets a waiting handler go on. */
export function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}
