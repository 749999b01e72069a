import type { Worker } from 'node:worker_threads';
import { startWorker } from '../common/start-worker';
import type { ConfigFile, ExportShown } from './config-file';
import type { readConfigText } from './parse-config-yaml';
import type { PlanInput } from './plan-input';

type Parsed = ReturnType<typeof readConfigText>;

/** What the worker is sent: a file to read, an export to write, or a plan to compute. */
export type ConfigJob = { kind: 'read'; text: string; tenantId: string } | { kind: 'write'; file: ConfigFile; tenantId: string; shown: ExportShown } | { kind: 'plan'; input: PlanInput };

/**
 * The worker's heap (192 MB): reading a file holds its syntax tree and its document at once, about
 * 1.2 KB an entry — a file at the edge of the YAML budget (yaml-budget: 100,000 entries) takes up
 * to 125 MB, 160 MB with a comment on every entry — and a plan of it less (both versions of 400
 * tasks of 8 KB params, every one changed: under 32 MB). Past it (the budget does not count blank
 * and comment lines: some 70 and 210 bytes each), the worker stops and the file is refused naming
 * `file`, the console unharmed. docs/MANUAL.md (Tasks as code) says so.
 */
export const WORKER_HEAP_MB = 192;

interface Entry {
  job: ConfigJob;
  answer: (result: unknown) => void;
  fail: (err: Error) => void;
  /** The worker stopped (its heap full, a crash) while on this job. */
  lost: (reason: string) => void;
}

/**
 * The heavy parts of tasks as code in a worker thread, one job at a time in arrival order, so that
 * a tenant's file never holds the event loop other tenants' requests are answered on: reading a
 * file (readConfigText: parsed and checked; its work bounded before parsing by yaml-budget), writing
 * an export (writeConfigFile), and
 * planning one (planOf: most of it the next fire times of every task whose schedule changes, about
 * a second for 1,000 tasks). A worker that stops anyway fails the job at hand (a file is refused
 * naming `file`), and the next job starts a fresh one. Started with the first job, stopped by close().
 */
export class ConfigThread {
  private worker: Worker | undefined;
  private readonly queue: Entry[] = [];
  private inFlight: Entry | undefined;
  private closed = false;

  /** `heapMb`: its worker's heap (tests: a smaller one shows what a file costs). */
  constructor(private readonly heapMb = WORKER_HEAP_MB) {}

  /** Jobs waiting or being worked on. */
  get load(): number {
    return this.queue.length + (this.inFlight ? 1 : 0);
  }

  read(text: string, tenantId: string): Promise<Parsed> {
    return this.run<Parsed>({ kind: 'read', text, tenantId }, (answer) => (reason) => answer({ errors: [{ field: 'file', reason }] }));
  }

  /**
   * An export's text (writeConfigFile): a tenant of 5,000 tasks is seconds of YAML and of leaving
   * out each task's defaults, on the event loop other tenants' requests are answered on.
   */
  write(file: ConfigFile, tenantId: string, shown: ExportShown): Promise<string> {
    return this.run<string>({ kind: 'write', file, tenantId, shown }, (_answer, fail) => (reason) => fail(new Error(`the export ${reason}`)));
  }

  /** The plan's changes (PlannedChange[]) as JSON text, what the answer carries. */
  plan(input: PlanInput): Promise<string> {
    return this.run<string>({ kind: 'plan', input }, (_answer, fail) => (reason) => fail(new Error(`the plan ${reason}`)));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const entry of [...(this.inFlight ? [this.inFlight] : []), ...this.queue.splice(0)]) entry.fail(new Error('the console is closing'));
    this.inFlight = undefined;
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private run<R>(job: ConfigJob, onLost: (answer: (r: R) => void, fail: (err: Error) => void) => (reason: string) => void): Promise<R> {
    if (this.closed) return Promise.reject(new Error('the console is closing'));
    return new Promise<R>((answer, fail) => {
      this.queue.push({ job, answer: answer as (result: unknown) => void, fail, lost: onLost(answer, fail) });
      this.next();
    });
  }

  private next(): void {
    if (this.inFlight || this.queue.length === 0 || this.closed) return;
    this.inFlight = this.queue.shift()!;
    this.ensureWorker().postMessage(this.inFlight.job);
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker(__dirname, 'config', { resourceLimits: { maxOldGenerationSizeMb: this.heapMb } });
    // Never what keeps the process alive: an embedding app that forgets close() still exits.
    worker.unref();
    let failure: Error | undefined;
    worker.on('message', (result: unknown) => worker === this.worker && this.settle((entry) => entry.answer(result)));
    worker.on('error', (err) => (failure = err));
    worker.on('exit', (code) => {
      if (worker !== this.worker) return;
      this.worker = undefined;
      const reason = failure?.message.includes('out of memory') ? 'needs more memory than a tasks-as-code file may take' : `could not be finished (${failure?.message ?? `exit ${code}`})`;
      this.settle((entry) => entry.lost(reason));
    });
    this.worker = worker;
    return worker;
  }

  private settle(give: (entry: Entry) => void): void {
    const entry = this.inFlight;
    this.inFlight = undefined;
    if (entry) give(entry);
    this.next();
  }
}
