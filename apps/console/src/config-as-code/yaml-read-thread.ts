import type { Worker } from 'node:worker_threads';
import { startWorker } from '../common/start-worker';
import type { readConfigText } from './parse-config-yaml';

type Parsed = ReturnType<typeof readConfigText>;

/** The worker's heap (128 MB): a file within the YAML budget needs a few MB; past it, the worker stops and the file is refused, the console unharmed. */
const WORKER_HEAP_MB = 128;

/**
 * Reads tasks-as-code files (readConfigText: parsed and checked) in a worker thread, one at a time in arrival order,
 * so that a tenant's file never holds the event loop other tenants' requests are answered on. The
 * work each file may cost is bounded before parsing (yaml-budget); a worker that stops anyway (its
 * heap full) fails the file at hand, and the next file starts a fresh one. Started with the first
 * file, stopped by close().
 */
export class YamlReadThread {
  private worker: Worker | undefined;
  private readonly queue: Array<{ text: string; tenantId: string; answer: (parsed: Parsed) => void; fail: (err: Error) => void }> = [];
  private inFlight: (typeof this.queue)[number] | undefined;
  private closed = false;

  read(text: string, tenantId: string): Promise<Parsed> {
    if (this.closed) return Promise.reject(new Error('the console is closing'));
    return new Promise((answer, fail) => {
      this.queue.push({ text, tenantId, answer, fail });
      this.next();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const entry of [...(this.inFlight ? [this.inFlight] : []), ...this.queue.splice(0)]) entry.fail(new Error('the console is closing'));
    this.inFlight = undefined;
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private next(): void {
    if (this.inFlight || this.queue.length === 0 || this.closed) return;
    this.inFlight = this.queue.shift()!;
    this.ensureWorker().postMessage({ text: this.inFlight.text, tenantId: this.inFlight.tenantId });
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker(__dirname, 'yaml-read', { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    // Never what keeps the process alive: an embedding app that forgets close() still exits.
    worker.unref();
    let failure: Error | undefined;
    worker.on('message', (parsed: Parsed) => worker === this.worker && this.settle((entry) => entry.answer(parsed)));
    worker.on('error', (err) => (failure = err));
    worker.on('exit', (code) => {
      if (worker !== this.worker) return;
      this.worker = undefined;
      const reason = failure?.message.includes('out of memory') ? 'needs more memory than a tasks-as-code file may take' : `could not be read (${failure?.message ?? `exit ${code}`})`;
      this.settle((entry) => entry.answer({ errors: [{ field: 'file', reason }] }));
    });
    this.worker = worker;
    return worker;
  }

  private settle(give: (entry: NonNullable<YamlReadThread['inFlight']>) => void): void {
    const entry = this.inFlight;
    this.inFlight = undefined;
    if (entry) give(entry);
    this.next();
  }
}
