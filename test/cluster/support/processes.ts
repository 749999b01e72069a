import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { demoExecutorCommand, startExecutorProcess, type ExecutorCommand, type ExecutorProcess } from '../../protocol/executor-process';

/**
 * OS processes of a cluster test: engine nodes (`node -r test/protocol/register-ts.cjs
 * apps/engine/src/main.ts`, from source, no build) and demo executors (test/protocol's
 * startExecutorProcess). Every process started here is remembered by PID and stopped by
 * `stopAllProcesses()` (the cluster's teardown, which runs even when a test fails) — and, as a
 * last resort, SIGKILLed when the test worker itself exits. Nothing else is ever signalled.
 */

export const ROOT = resolve(__dirname, '../../..');
export const REGISTER_TS = resolve(ROOT, 'test/protocol/register-ts.cjs');
const ENGINE_MAIN = resolve(ROOT, 'apps/engine/src/main.ts');
const CONSOLE_MAIN = resolve(ROOT, 'apps/console/src/main.ts');
const NODE_MAIN = resolve(ROOT, 'apps/embedded/src/node-main.ts');

/** Output kept in memory per process (the whole output also goes to its log file). */
const MAX_KEPT_OUTPUT = 256 * 1024;

/** A process this harness started. */
export interface OwnedProcess {
  name: string;
  pid: number;
  child: ChildProcess;
  /** The tail of stdout + stderr (the full output is in `logFile`). */
  output(): string;
  logFile: string;
  exited: Promise<number | string>;
  /** Sends `signal` (default SIGTERM) and waits for the exit; SIGKILL after `timeoutMs`. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | string>;
  readonly alive: boolean;
}

export interface EngineProcess extends OwnedProcess {
  nodeId: string;
  /** Base URL of its callback API (`ENGINE READY <nodeId> <url>`). */
  url: string;
}

export interface ExecutorNode extends OwnedProcess {
  url: string;
  /** JSONL: one line per handler invocation (apps/demo-executor BATON_DEMO_RECORD_FILE). */
  recordFile: string;
  spoolFile: string;
}

const owned = new Set<OwnedProcess>();
let exitHookInstalled = false;

function track(p: OwnedProcess): void {
  owned.add(p);
  void p.exited.then(() => owned.delete(p));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Last resort (the worker exits without teardown): kill what we started, by PID, synchronously.
    process.once('exit', () => {
      for (const q of owned) killQuietly(q.child, 'SIGKILL');
    });
  }
}

/** Signals a child we spawned: its own process group when it leads one (detached), else the PID. */
function killQuietly(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  try {
    if ((child as ChildProcess & { detachedGroup?: boolean }).detachedGroup) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    // already gone
  }
}

function stopper(child: ChildProcess, exited: Promise<number | string>) {
  return async (signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 10_000): Promise<number | string> => {
    if (child.exitCode !== null || child.signalCode !== null) return exited;
    killQuietly(child, signal);
    const killer = setTimeout(() => killQuietly(child, 'SIGKILL'), timeoutMs);
    const code = await exited;
    clearTimeout(killer);
    return code;
  };
}

/** This process's environment without BATON_* settings: an engine under test gets only what the test gives it. */
function inheritedEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BATON_')));
}

/** Starts `node -r register-ts.cjs apps/engine/src/main.ts` and waits for `ENGINE READY <nodeId> <url>`. */
export async function startEngineProcess(options: { name: string; env: Record<string, string>; logFile: string; timeoutMs?: number }): Promise<EngineProcess> {
  const { process: p, ready } = await startReadyProcess({ ...options, args: ['-r', REGISTER_TS, ENGINE_MAIN], ready: /^ENGINE READY (\S+) (\S+)\r?$/m, what: 'engine' });
  return Object.assign(p, { nodeId: ready[1], url: ready[2] });
}

/** Starts `node -r register-ts.cjs apps/embedded/src/node-main.ts` (`baton node`: console and engine in one process) and waits for `NODE READY <nodeId> <url>`. */
export async function startNodeProcess(options: { name: string; env: Record<string, string>; logFile: string; timeoutMs?: number }): Promise<EngineProcess> {
  const { process: p, ready } = await startReadyProcess({ ...options, args: ['-r', REGISTER_TS, NODE_MAIN], ready: /^NODE READY (\S+) (\S+)\r?$/m, what: 'node' });
  return Object.assign(p, { nodeId: ready[1], url: ready[2] });
}

/**
 * Starts a console on its own and waits for `CONSOLE READY <url>`: from the sources
 * (`node -r register-ts.cjs apps/console/src/main.ts`), or `compiled` as a user runs it
 * (`node bin/baton.js console`, which builds what is stale first) — the SWC register alone
 * costs ~45 MB of RSS.
 */
export async function startConsoleProcess(options: { name: string; env: Record<string, string>; logFile: string; timeoutMs?: number; compiled?: boolean }): Promise<OwnedProcess & { url: string }> {
  const args = options.compiled ? [resolve(ROOT, 'bin/baton.js'), 'console'] : ['-r', REGISTER_TS, CONSOLE_MAIN];
  const { process: p, ready } = await startReadyProcess({ ...options, args, ready: /^CONSOLE READY (\S+)\r?$/m, what: 'console' });
  return Object.assign(p, { url: ready[1] });
}

/** Spawns a Node process (a Baton server from its TypeScript main, a benchmark's peer worker), tracked like the others, and waits for its READY line. */
export function startReadyProcess(options: {
  name: string;
  env: Record<string, string>;
  logFile: string;
  timeoutMs?: number;
  /** Node's arguments: the main script, with a register before it when run from the sources. */
  args: string[];
  ready: RegExp;
  what: string;
}): Promise<{ process: OwnedProcess; ready: RegExpExecArray }> {
  const { name, env, logFile, what } = options;
  const timeoutMs = options.timeoutMs ?? 30_000;
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, options.args, {
      cwd: ROOT,
      env: { ...inheritedEnv(), NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group: the whole tree is signalled at once
    });
    (child as ChildProcess & { detachedGroup?: boolean }).detachedGroup = true;
    let out = '';
    const capture = (d: Buffer) => {
      const text = d.toString();
      appendFileSync(logFile, text);
      out += text;
      if (out.length > MAX_KEPT_OUTPUT) out = out.slice(out.length - MAX_KEPT_OUTPUT / 2);
    };
    const exited = new Promise<number | string>((r) => child.once('exit', (code, signal) => r(code ?? signal ?? -1)));
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      killQuietly(child, 'SIGKILL');
      reject(new Error(`${what} ${name} ${why}.\nOutput (${logFile}):\n${out.slice(-8000)}`));
    };
    const timer = setTimeout(() => fail(`printed no READY line within ${timeoutMs} ms`), timeoutMs);
    child.once('error', (err) => fail(`could not start: ${err.message}`));
    child.stderr!.on('data', capture);
    child.stdout!.on('data', (d: Buffer) => {
      capture(d);
      const ready = options.ready.exec(out);
      if (!ready || settled) return;
      settled = true;
      clearTimeout(timer);
      const p: OwnedProcess = {
        name,
        pid: child.pid!,
        child,
        logFile,
        output: () => out,
        exited,
        stop: stopper(child, exited),
        get alive() {
          return child.exitCode === null && child.signalCode === null;
        },
      };
      track(p);
      resolvePromise({ process: p, ready });
    });
    void exited.then((code) => fail(`exited (${code}) before its READY line`));
  });
}

/**
 * Starts the demo executor (apps/demo-executor) as its own process, via test/protocol's helpers;
 * `command`: another executor with the demo handlers and its record file (e.g. goExecutorCommand).
 */
export async function startDemoExecutor(options: {
  name: string;
  env: Record<string, string>;
  recordFile: string;
  spoolFile: string;
  logFile: string;
  command?: (env: Record<string, string>) => ExecutorCommand;
}): Promise<ExecutorNode> {
  const command = options.command ?? demoExecutorCommand;
  const proc: ExecutorProcess = await startExecutorProcess(
    command({ ...options.env, BATON_DEMO_RECORD_FILE: options.recordFile, BATON_EXECUTOR_SPOOL: options.spoolFile }),
    30_000,
  );
  const child = proc.child;
  const flush = () => appendFileSync(options.logFile, proc.output());
  const p: ExecutorNode = {
    name: options.name,
    pid: proc.pid,
    child,
    url: proc.url,
    recordFile: options.recordFile,
    spoolFile: options.spoolFile,
    logFile: options.logFile,
    output: () => proc.output(),
    exited: proc.exited.then((code) => {
      flush();
      return code;
    }),
    stop: stopper(child, proc.exited),
    get alive() {
      return child.exitCode === null && child.signalCode === null;
    },
  };
  track(p);
  return p;
}

/**
 * Stops every process this harness started and that still runs: SIGTERM, then SIGKILL after
 * `graceMs`. In parallel; never throws.
 */
export async function stopAllProcesses(graceMs = 3_000): Promise<void> {
  await Promise.all([...owned].map((p) => p.stop('SIGTERM', graceMs).catch(() => undefined)));
}

/** The processes still running (tests and teardown diagnostics). */
export function runningProcesses(): OwnedProcess[] {
  return [...owned].filter((p) => p.alive);
}
