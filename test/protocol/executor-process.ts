import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ensureJavaSdkBuilt } from './java-sdk-build';

const ROOT = resolve(__dirname, '../..');

/** How to start an executor process: command, arguments, extra environment. */
export interface ExecutorCommand {
  command: string;
  args: string[];
  cwd?: string;
  env?: Record<string, string>;
}

/** A running executor process that printed `READY <url>`. */
export interface ExecutorProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  /** stdout + stderr so far (for failure messages). */
  output(): string;
  /** Resolves with the exit code (or the signal name) when the process ends. */
  exited: Promise<number | string>;
  /** Sends `signal` (default SIGTERM) and waits for the exit (SIGKILL after `timeoutMs`). */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | string>;
}

/** `node -r test/protocol/register-ts.cjs apps/demo-executor/src/main.ts`: the demo executor from source, no build. */
export function demoExecutorCommand(env: Record<string, string> = {}): ExecutorCommand {
  return {
    command: process.execPath,
    args: ['-r', resolve(__dirname, 'register-ts.cjs'), resolve(ROOT, 'apps/demo-executor/src/main.ts')],
    cwd: ROOT,
    env,
  };
}

/** `python3 examples/python-executor/executor.py` (fails loudly if python3 is missing). */
export function pythonExecutorCommand(env: Record<string, string> = {}): ExecutorCommand {
  return { command: process.env.BATON_PYTHON ?? 'python3', args: ['-u', resolve(ROOT, 'examples/python-executor/executor.py')], cwd: ROOT, env };
}

/**
 * `java -cp … dev.baton.examples.DemoExecutor`: the demo handlers on the Java SDK (sdks/java),
 * built first when stale (fails loudly without a JDK).
 */
export function javaExecutorCommand(env: Record<string, string> = {}): ExecutorCommand {
  return { command: process.env.BATON_JAVA ?? 'java', args: ['-XX:+UseSerialGC', '-Xss512k', '-cp', ensureJavaSdkBuilt(), 'dev.baton.examples.DemoExecutor'], cwd: ROOT, env };
}

/** Starts the process and waits for its `READY <url>` line on stdout. */
export function startExecutorProcess(cmd: ExecutorCommand, timeoutMs = 60_000): Promise<ExecutorProcess> {
  return new Promise((resolvePromise, reject) => {
    let out = '';
    const child = spawn(cmd.command, cmd.args, {
      cwd: cmd.cwd ?? ROOT,
      env: { ...process.env, ...cmd.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | string>((r) => child.once('exit', (code, signal) => r(code ?? signal ?? -1)));
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`executor process (${cmd.command} ${cmd.args.join(' ')}) ${why}.\nOutput:\n${out}`));
    };
    const timer = setTimeout(() => fail(`printed no READY line within ${timeoutMs} ms`), timeoutMs);
    child.once('error', (err) => fail(`could not start: ${err.message}`));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const ready = /^READY (\S+)\r?\n/m.exec(out);
      if (!ready || settled) return;
      settled = true;
      clearTimeout(timer);
      child.removeAllListeners('error');
      resolvePromise({
        url: ready[1],
        pid: child.pid!,
        child,
        output: () => out,
        exited,
        stop: async (signal: NodeJS.Signals = 'SIGTERM', stopTimeoutMs = 15_000) => {
          if (child.exitCode !== null || child.signalCode !== null) return exited;
          child.kill(signal);
          const killer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
          const code = await exited;
          clearTimeout(killer);
          return code;
        },
      });
    });
    void exited.then((code) => fail(`exited (${code}) before READY`));
  });
}

const GO_SDK = resolve(ROOT, 'sdks/go');

/** Newest mtime under `dir` of Go sources and go.mod (0 when none). */
function newestGoSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestGoSource(path));
    else if (/\.go$|^go\.(mod|sum)$/.test(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** The Go demo executor (sdks/go/examples/demo-executor), built when stale. */
export function buildGoExecutor(): string {
  return buildGoProgram('demo-executor');
}

/**
 * One of the Go SDK's examples (sdks/go/examples/<name>) built into .tmp/go/<name> when a Go
 * source is newer than the binary (offline: standard library only, so GOPROXY=off; the build
 * cache under .tmp/go too). Fails loudly without Go (apt-get install golang-go, or BATON_GO).
 */
export function buildGoProgram(name: string): string {
  const binary = resolve(ROOT, '.tmp/go', name);
  const built = existsSync(binary) ? statSync(binary).mtimeMs : -1;
  if (built >= newestGoSource(GO_SDK)) return binary;
  mkdirSync(dirname(binary), { recursive: true });
  try {
    execFileSync(process.env.BATON_GO ?? 'go', ['build', '-o', binary, `./examples/${name}`], {
      cwd: GO_SDK,
      env: { ...process.env, GOFLAGS: '-mod=mod', GOPROXY: 'off', GOCACHE: resolve(ROOT, '.tmp/go/cache'), CGO_ENABLED: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    const e = err as Error & { stderr?: Buffer };
    throw new Error(`could not build the Go example ${name} (needs Go ≥ 1.19: apt-get install golang-go, or set BATON_GO): ${e.stderr?.toString() || e.message}`);
  }
  return binary;
}

/** The Go SDK's demo executor (sdks/go/examples/demo-executor), built when stale. */
export function goExecutorCommand(env: Record<string, string> = {}): ExecutorCommand {
  return { command: buildGoExecutor(), args: [], cwd: ROOT, env };
}
