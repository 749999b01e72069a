import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
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
export function startExecutorProcess(cmd: ExecutorCommand, timeoutMs = 15_000): Promise<ExecutorProcess> {
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
