/**
 * A clean restart of embedded mode (issue 24): start, SIGTERM, start. Nest's shutdown hooks used
 * to close the engine before the demo executor, whose row stayed UP: the next start raised a
 * CRITICAL "Executor demo … is DOWN: no heartbeat" for it. The process is run as `npm start` runs
 * it (apps/embedded/src/main.ts, from source), on a private SQLite file and a loopback port.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '@baton/persistence';

const ROOT = resolve(__dirname, '../..');
/** From this suite's port range: one embedded process at a time. */
const PORT = 18611;

/** The demo tenant's executor rows, read from the SQLite file beside the running process. */
function demoExecutorRows(file: string): Array<{ state: string; stopped_at: number | null }> {
  const db = new Database(file, { readonly: true, fileMustExist: true, timeout: 10_000 });
  try {
    return db.prepare("SELECT state, stopped_at FROM executors WHERE tenant_id = 'demo' ORDER BY id").all() as Array<{ state: string; stopped_at: number | null }>;
  } finally {
    db.close();
  }
}

function startEmbeddedProcess(databaseUrl: string) {
  const child = spawn(process.execPath, ['-r', resolve(ROOT, 'test/protocol/register-ts.cjs'), resolve(ROOT, 'apps/embedded/src/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, BATON_DB_URL: databaseUrl, BATON_CONSOLE_PORT: String(PORT), BATON_HOST: '127.0.0.1', BATON_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | string>((r) => child.once('exit', (code, signal) => r(code ?? signal ?? -1)));
  const ready = new Promise<void>((resolveReady, reject) => {
    const timer = setTimeout(() => reject(new Error(`embedded printed no banner within 60 s:\n${out}`)), 60_000);
    child.stdout.on('data', () => {
      if (out.includes('API docs')) {
        clearTimeout(timer);
        resolveReady();
      }
    });
    void exited.then((code) => reject(new Error(`embedded exited (${code}) before its banner:\n${out}`)));
  });
  return { child, ready, exited, output: () => out };
}

describe('embedded mode: a clean restart (SIGTERM, start)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-embedded-restart-'));
  const file = join(dir, 'baton.sqlite');
  const databaseUrl = `sqlite:${file}`;
  /** Until the demo executor of the running process has registered (row `n`, UP). */
  const registered = (n: number) => vi.waitFor(() => expect(demoExecutorRows(file)[n - 1]?.state).toBe('UP'), { timeout: 30_000, interval: 100 });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stops the demo executor first (DOWN, stopped, no alarm) and restarts without an executor alarm', async () => {
    const first = startEmbeddedProcess(databaseUrl);
    try {
      await first.ready;
      await registered(1);
    } finally {
      first.child.kill('SIGTERM');
    }
    expect(await first.exited, first.output()).toBe('SIGTERM');
    // Its row was stopped by its last heartbeat: no UP row is left for the next start's watchdog to
    // declare DOWN (which it would, with an alarm, after BATON_EXECUTOR_DEAD_AFTER_MS).
    expect(demoExecutorRows(file)).toEqual([{ state: 'DOWN', stopped_at: expect.any(Number) }]);

    const second = startEmbeddedProcess(databaseUrl);
    try {
      await second.ready;
      await registered(2);
    } finally {
      second.child.kill('SIGTERM');
    }
    await second.exited;

    const ds = await openDatabase(databaseUrl);
    try {
      const rows = (await ds.query("SELECT state, stopped_at FROM executors WHERE tenant_id = 'demo' ORDER BY id")) as Array<{ state: string; stopped_at: number | null }>;
      // One row per start (the demo executor listens on an ephemeral port), each stopped by its SIGTERM.
      expect(rows).toEqual([
        { state: 'DOWN', stopped_at: expect.any(Number) },
        { state: 'DOWN', stopped_at: expect.any(Number) },
      ]);
      expect(await ds.query("SELECT type, message FROM alarms WHERE type IN ('EXECUTOR_DOWN', 'EXECUTOR_UP')")).toEqual([]);
    } finally {
      await ds.destroy();
    }
  }, 150_000);
});
