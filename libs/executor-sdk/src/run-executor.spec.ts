import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../../..');
const dir = mkdtempSync(join(tmpdir(), 'baton-run-executor-'));

/** `runExecutor(hello)` as a process's main (sources through the repo's register); resolves once it exits. */
function runMain(env: Record<string, string>, afterStart?: (pid: number) => void) {
  const script = `const { defineHandler, runExecutor } = require('@baton/executor-sdk');
    runExecutor(defineHandler('hello', () => 'hi'));`;
  const child = spawn(process.execPath, ['-r', './test/protocol/register-ts.cjs', '-e', script], {
    cwd: root,
    env: { PATH: process.env.PATH, BATON_EXECUTOR_SPOOL: join(dir, 'spool.jsonl'), ...env },
  });
  let stdout = '';
  let stderr = '';
  let started = false;
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    if (!started && stdout.includes('listening on')) {
      started = true;
      afterStart?.(child.pid!);
    }
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => child.once('exit', (code) => done({ code, stdout, stderr })));
}

describe('runExecutor', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('exits 1 with the message when the environment is incomplete', async () => {
    const { code, stderr } = await runMain({ BATON_EXECUTOR_SECRET: 's' });
    expect(code).toBe(1);
    expect(stderr).toContain('executor: BATON_TENANT is required');
  });

  it('logs where it listens and stops gracefully on SIGINT with exit code 0', async () => {
    // No engine answers at this URL: heartbeats fail, the executor still serves and stops cleanly.
    const { code, stdout } = await runMain({ BATON_TENANT: 'acme', BATON_EXECUTOR_SECRET: 's', BATON_ENGINE_URLS: 'http://127.0.0.1:9' }, (pid) => process.kill(pid, 'SIGINT'));
    expect(stdout).toMatch(/executor default of tenant acme listening on http:\/\/127\.0\.0\.1:\d+, engines http:\/\/127\.0\.0\.1:9/);
    expect(stdout).toContain('executor: SIGINT, stopping gracefully');
    expect(code).toBe(0);
  }, 20_000);
});
