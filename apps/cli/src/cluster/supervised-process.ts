import { spawn, type ChildProcess } from 'node:child_process';
import type { PrefixedOutput } from './prefixed-output';

/** How long a child has to stop after SIGTERM before it is killed. */
const STOP_GRACE_MS = 25_000;

/**
 * A Baton process started by `baton cluster`: a Node child (its own process group, so a Ctrl-C
 * on the terminal reaches the cluster only, which stops the children in order), its output
 * prefixed with its name, waited for until it prints its ready line.
 */
export class SupervisedProcess {
  readonly child: ChildProcess;
  /** Set once it has exited: its exit code, or the signal that ended it. */
  exit?: { code: number | null; signal: NodeJS.Signals | null };
  private readonly exited: Promise<void>;
  private readonly ready: Promise<RegExpMatchArray>;
  /** Set by stop(): an exit from then on is expected. */
  private stopping = false;

  constructor(
    readonly name: string,
    script: string,
    env: NodeJS.ProcessEnv,
    output: PrefixedOutput,
    readyLine: RegExp,
    onUnexpectedExit: (process: SupervisedProcess) => void,
  ) {
    this.child = spawn(process.execPath, [script], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let markReady: (match: RegExpMatchArray) => void;
    let failReady: (error: Error) => void;
    this.ready = new Promise((resolve, reject) => ((markReady = resolve), (failReady = reject)));
    this.ready.catch(() => undefined);
    output.follow(name, this.child.stdout!, (line) => {
      const match = readyLine.exec(line);
      if (match) markReady(match);
    });
    output.follow(name, this.child.stderr!);
    this.exited = new Promise((resolve) => {
      this.child.once('error', (error) => {
        this.exit = { code: null, signal: null };
        failReady(new Error(`${name} could not start: ${error.message}`));
        resolve();
      });
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        failReady(new Error(`${name} exited (${this.exitText()}) before it was ready`));
        if (!this.stopping) onUnexpectedExit(this);
        resolve();
      });
    });
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** Resolves with the ready line's match once the child prints it; rejects if it exits first or `timeoutMs` passes. */
  async whenReady(timeoutMs: number): Promise<RegExpMatchArray> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${this.name} was not ready after ${timeoutMs / 1000} s`)), timeoutMs);
    });
    try {
      return await Promise.race([this.ready, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  exitText(): string {
    return this.exit?.signal ? `signal ${this.exit.signal}` : `exit code ${this.exit?.code}`;
  }

  /** SIGTERM (a graceful stop), SIGKILL after the grace period; resolves once it has exited. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.exit) return;
    this.child.kill('SIGTERM');
    const killer = setTimeout(() => this.child.kill('SIGKILL'), STOP_GRACE_MS);
    await this.exited;
    clearTimeout(killer);
  }

  /** Last resort when the cluster itself exits abruptly: no child outlives it. */
  killNow(): void {
    this.stopping = true;
    if (!this.exit) this.child.kill('SIGKILL');
  }
}
