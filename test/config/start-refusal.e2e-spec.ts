import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');
const REGISTER_TS = resolve(ROOT, 'test/protocol/register-ts.cjs');

/** Runs a process's main.ts from source until it exits; its exit code and stderr. */
function runToExit(main: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BATON_')));
  const child = spawn(process.execPath, ['-r', REGISTER_TS, resolve(ROOT, main)], { cwd: ROOT, env: { ...inherited, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  // A guard against a hang: three processes start at once from the sources, slow on a loaded machine.
  const killer = setTimeout(() => child.kill('SIGKILL'), 150_000);
  return new Promise((done) =>
    child.once('exit', (code) => {
      clearTimeout(killer);
      done({ code, stderr });
    }),
  );
}

describe('a busy port', () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-busy-port-'));
  let server: Server;
  let port: number;

  beforeAll(async () => {
    server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it.concurrent.each([
    { name: 'console', main: 'apps/console/src/main.ts', variable: 'BATON_CONSOLE_PORT' },
    { name: 'embedded mode', main: 'apps/embedded/src/main.ts', variable: 'BATON_CONSOLE_PORT' },
    { name: 'engine', main: 'apps/engine/src/main.ts', variable: 'BATON_ENGINE_PORT' },
  ])('stops the $name with one line naming $variable, exit code 1', async ({ name, main, variable }) => {
    const host: Record<string, string> = variable === 'BATON_ENGINE_PORT' ? { BATON_ENGINE_HOST: '127.0.0.1' } : { BATON_HOST: '127.0.0.1' };
    const db = `sqlite:${join(dir, `${name.replace(/\W/g, '-')}.sqlite`)}`;
    const { code, stderr } = await runToExit(main, { BATON_DB_URL: db, [variable]: String(port), ...host, BATON_LOG_LEVEL: 'warn' });
    expect(stderr.trim()).toBe(`port ${port} is in use (127.0.0.1): set ${variable} to another port`);
    expect(code).toBe(1);
  }, 180_000);
});

describe('a bad variable', () => {
  it('stops the process with one line naming the variable, the value and the reason, exit code 1', async () => {
    const { code, stderr } = await runToExit('apps/engine/src/main.ts', { BATON_ENGINE_SLOTS: 'abc' });
    expect(stderr.trim()).toBe('BATON_ENGINE_SLOTS="abc": must be an integer ≥ 1');
    expect(code).toBe(1);
  }, 180_000);
});
