import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const ROOT = resolve(__dirname, '../..');
const run = promisify(execFile);

/**
 * `bin/baton.js <args>` from the repository's root, asynchronously (a console answering it may
 * live in the test's own process), with `env` over the test's environment: its exit code and
 * output, whatever the code.
 */
export async function runBaton(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/baton.js', ...args], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 240_000, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** `script` in bash from the repository's root (a pipeline around bin/baton.js), as runBaton runs the CLI alone. */
export async function runShell(env: Record<string, string>, script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('bash', ['-c', script], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 240_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
