import type { Worker } from 'node:worker_threads';
import { startWorker } from '../common/start-worker';
import { STAGE, type SchemaJob, type SchemaVerdict, type Stage } from './params-schemas';
import { threadCpuNs } from './thread-cpu';

/**
 * How long the worker may take, each bound in ms of the worker thread's CPU time (thread-cpu.ts;
 * wall time where that cannot be read). Whatever the CPU time, a stage is cut after WALL_GUARD
 * times its bound in wall time.
 */
export interface Deadlines {
  /** Longest a task's params may take to check against a compiled schema (default 50). An ordinary schema takes microseconds; nested anyOf/$ref can take seconds. */
  checkMs: number;
  /** Longest a schema may take to compile, once per schema text (default 1,000). A 15 KB schema of 150 objects takes 40–170 ms on 2 busy cores. */
  compileMs: number;
  /** Longest the checks of one request may take in all, checked between its tasks (default 1,000): 1,000 tasks each just under the deadline would hold the worker 50 s. */
  requestMs: number;
}

export const DEADLINES: Deadlines = { checkMs: 50, compileMs: 1_000, requestMs: 1_000 };

/** A stage is cut after this many times its deadline in wall time, whatever CPU it was given: a worker starved that long is stuck in all but name. */
const WALL_GUARD = 20;

/** What the worker is started with: where it tells its progress, and its budget per request. */
export interface WorkerData {
  progress: SharedArrayBuffer;
  requestMs: number;
}

/** The worker's heap (256 MB): a schema that reports one error per path through nested anyOf fills it within its deadline otherwise. */
const WORKER_HEAP_MB = 256;

/** Schemas remembered for having overrun (compiles refused at once; suspects of ParamsCheckWorkers), by text. */
const OVERRUNS_LIMIT = 500;

/** A verdict on a job: the worker's, or a refusal because checking it would take too long (the 400's reason). */
export type Verdict = SchemaVerdict | { refused: string };

/** What the console sends the worker: each schema text once (a batch of 1,000 tasks shares a few), jobs by the text's index. */
export interface CheckRequest {
  schemas: string[];
  jobs: Array<{ schema: number; params?: unknown; check: boolean }>;
}

interface Pending {
  request: CheckRequest;
  answer: (verdicts: Verdict[]) => void;
  fail: (err: Error) => void;
}

export const TOO_COSTLY = "the handler's params schema is too costly to check";

/**
 * Runs ParamsSchemas in a worker thread under a watchdog, so that a tenant's schema can neither
 * block the console's event loop nor take more than its deadline of the worker: a compile or a
 * check longer than its deadline (Deadlines), or one that fills the worker's heap, is refused;
 * the worker is terminated (V8 stops it mid-loop) and a fresh one started. The worker cannot time
 * itself: a validator in a backtracking loop runs no code of ours until it returns. So it writes
 * in shared memory which job and stage it is in and since when, and the watchdog, a timer here,
 * reads that.
 *
 * One request at the worker at a time, in arrival order: each holds it at most its budget
 * (Deadlines.requestMs) plus one deadline. The worker starts with the first request, again at
 * once after an overrun, and stops with close().
 */
export class ParamsCheckThread {
  private worker: { thread: Worker; progress: Progress; failure?: Error } | undefined;
  private readonly queue: Pending[] = [];
  private inFlight: Pending | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private readonly overruns = new Map<string, string>();
  private closed = false;

  /** `overran` hears of each schema whose compile or check overran its deadline (ParamsCheckWorkers). */
  constructor(
    private readonly deadlines: Deadlines = DEADLINES,
    private readonly overran: (schema: string) => void = () => undefined,
  ) {}

  /** The verdict of each job, in the order given. */
  async run(jobs: readonly SchemaJob[]): Promise<Verdict[]> {
    const verdicts: Array<Verdict | undefined> = jobs.map((job) => {
      const overrun = this.overruns.get(job.schema);
      return overrun === undefined ? undefined : { refused: overrun };
    });
    const request: CheckRequest = { schemas: [], jobs: [] };
    const indexOf = new Map<string, number>();
    const sent: number[] = [];
    jobs.forEach((job, i) => {
      if (verdicts[i]) return;
      let schema = indexOf.get(job.schema);
      if (schema === undefined) indexOf.set(job.schema, (schema = request.schemas.push(job.schema) - 1));
      request.jobs.push('params' in job ? { schema, params: job.params, check: true } : { schema, check: false });
      sent.push(i);
    });
    if (sent.length > 0) {
      const answers = await this.send(request);
      sent.forEach((i, k) => (verdicts[i] = answers[k]));
    }
    return verdicts as Verdict[];
  }

  /** Stops the worker; what is still queued fails. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.watchdog);
    const waiting = this.inFlight ? [this.inFlight, ...this.queue] : [...this.queue];
    this.inFlight = undefined;
    this.queue.length = 0;
    for (const entry of waiting) entry.fail(new Error('the console is closing'));
    const worker = this.worker;
    this.worker = undefined;
    await worker?.thread.terminate();
  }

  private send(request: CheckRequest): Promise<Verdict[]> {
    if (this.closed) return Promise.reject(new Error('the console is closing'));
    return new Promise((answer, fail) => {
      this.queue.push({ request, answer, fail });
      this.next();
    });
  }

  private next(): void {
    if (this.inFlight || this.queue.length === 0 || this.closed) return;
    this.inFlight = this.queue.shift()!;
    this.ensureWorker().thread.postMessage(this.inFlight.request);
    this.arm(this.deadlines.checkMs);
  }

  private ensureWorker(): NonNullable<ParamsCheckThread['worker']> {
    if (this.worker) return this.worker;
    // Shared memory of its own: a terminated worker may still write to its own for a moment.
    const progress = new Progress(new SharedArrayBuffer(Progress.BYTES));
    const thread = startParamsWorker({ progress: progress.buffer, requestMs: this.deadlines.requestMs });
    const worker = { thread, progress, failure: undefined as Error | undefined };
    // Never what keeps the process alive: an embedding app that forgets close() still exits.
    thread.unref();
    thread.on('message', (verdicts: SchemaVerdict[]) => worker === this.worker && this.finish(verdicts));
    thread.on('error', (err) => (worker.failure = err));
    thread.on('exit', (code) => worker === this.worker && this.died(code));
    this.worker = worker;
    return worker;
  }

  private arm(ms: number): void {
    clearTimeout(this.watchdog);
    this.watchdog = setTimeout(() => this.watch(), Math.max(1, ms));
    this.watchdog.unref();
  }

  private watch(): void {
    if (!this.inFlight || !this.worker) return;
    const { index, stage, since, cpuSince, tid } = this.worker.progress.read();
    // Idle: still starting (loading Ajv takes a while), or about to answer.
    const { checkMs, compileMs } = this.deadlines;
    if (stage === STAGE.idle) return this.arm(checkMs);
    const bound = stage === STAGE.compiling ? compileMs : checkMs;
    const wall = clockMs() - since;
    const cpuNow = cpuSince === null ? null : threadCpuNs(tid);
    const spent = cpuNow === null ? wall : Number(cpuNow - cpuSince!) / 1e6;
    const left = Math.min(bound - spent, bound * WALL_GUARD - wall);
    // At least every checkMs: what was read may be a stage that has just ended.
    if (left > 0) return this.arm(Math.min(left, checkMs));
    const why = stage === STAGE.compiling ? `compiling it took longer than ${compileMs} ms` : `checking these params took longer than ${checkMs} ms`;
    if (stage === STAGE.compiling) this.rememberOverrun(this.schemaOf(index), `${TOO_COSTLY}: ${why}`);
    this.refuse(index, why);
  }

  /** The job at `index` is refused and the worker replaced; the request's other jobs are not checked (it is refused anyway). */
  private refuse(index: number, why: string): void {
    this.overran(this.schemaOf(index));
    const worker = this.worker!;
    this.worker = undefined;
    void worker.thread.terminate();
    // Its successor starts now, not with the next request: starting takes 50–200 ms (Ajv loading).
    this.ensureWorker();
    this.finish(this.inFlight!.request.jobs.map((_, i): Verdict => (i === index ? { refused: `${TOO_COSTLY}: ${why}` } : { errors: [] })));
  }

  private died(code: number): void {
    const { progress, failure } = this.worker!;
    const { index, stage } = progress.read();
    if (this.inFlight && stage !== STAGE.idle) return this.refuse(index, failure?.message.includes('out of memory') ? 'checking these params ran out of memory' : `its check failed (${failure?.message ?? `exit ${code}`})`);
    this.worker = undefined;
    const entry = this.inFlight;
    this.inFlight = undefined;
    clearTimeout(this.watchdog);
    entry?.fail(failure ?? new Error(`the params check's worker stopped (exit ${code})`));
    this.next();
  }

  private finish(verdicts: Verdict[]): void {
    clearTimeout(this.watchdog);
    const entry = this.inFlight!;
    this.inFlight = undefined;
    entry.answer(verdicts);
    this.next();
  }

  private schemaOf(index: number): string {
    const { schemas, jobs } = this.inFlight!.request;
    return schemas[jobs[index].schema];
  }

  private rememberOverrun(schema: string, reason: string): void {
    if (this.overruns.size >= OVERRUNS_LIMIT) this.overruns.clear();
    this.overruns.set(schema, reason);
  }
}

/** Overruns after which a schema is flagged unusable: its checks are refused without running. */
const FLAG_AFTER_OVERRUNS = 2;
/** A flagged schema is tried again this long after its last overrun (a busy machine may have caused them). */
const FLAG_FORGOTTEN_MS = 10 * 60_000;

/**
 * Two ParamsCheckThreads: the one every schema's checks go to, and one for the suspects — schemas
 * whose compile or check has overrun its deadline before, and every schema of a tenant (the
 * `owner` of a request) one of whose checks was refused in the last FLAG_FORGOTTEN_MS. An overrun
 * costs a worker its compiled schemas and a restart (50–200 ms from the build) that the checks
 * queued behind it wait for; once a schema or a tenant has cost that, its checks cost only the
 * suspects that again — a tenant declaring a new hostile schema for every save included. A
 * schema that overran FLAG_AFTER_OVERRUNS times is flagged unusable: its checks are refused at
 * once, without a worker, until FLAG_FORGOTTEN_MS after its last overrun — so saving against a
 * hostile schema again and again is refused in microseconds, not a deadline plus a restart.
 */
export class ParamsCheckWorkers {
  private readonly suspects = new Map<string, { overruns: number; lastAt: number }>();
  /** Tenants with a check refused lately, and when. */
  private readonly suspectOwners = new Map<string, number>();
  private readonly shared: ParamsCheckThread;
  private readonly quarantine: ParamsCheckThread;
  private readonly flagged: string;

  constructor(
    deadlines: Deadlines = DEADLINES,
    private readonly now: () => number = Date.now,
  ) {
    const overran = (schema: string) => {
      if (this.suspects.size >= OVERRUNS_LIMIT && !this.suspects.has(schema)) this.suspects.clear();
      const suspect = this.suspects.get(schema);
      this.suspects.set(schema, { overruns: (suspect?.overruns ?? 0) + 1, lastAt: this.now() });
    };
    this.shared = new ParamsCheckThread(deadlines, overran);
    this.quarantine = new ParamsCheckThread(deadlines, overran);
    this.flagged = `${TOO_COSTLY}: its checks overran the ${deadlines.checkMs} ms deadline ${FLAG_AFTER_OVERRUNS} times; it is not checked again for ${FLAG_FORGOTTEN_MS / 60_000} minutes (fix the schema the executor declares)`;
  }

  /** The verdict of each job of `owner` (a tenant), in the order given (ParamsCheckThread.run). */
  async run(jobs: readonly SchemaJob[], owner: string): Promise<Verdict[]> {
    const now = this.now();
    const ownerSuspect = now - (this.suspectOwners.get(owner) ?? -Infinity) < FLAG_FORGOTTEN_MS;
    const route = jobs.map((job): 'shared' | 'quarantine' | 'flagged' => {
      const suspect = this.suspects.get(job.schema);
      if (suspect && suspect.overruns >= FLAG_AFTER_OVERRUNS && now - suspect.lastAt < FLAG_FORGOTTEN_MS) return 'flagged';
      return suspect || ownerSuspect ? 'quarantine' : 'shared';
    });
    const [shared, quarantined] = await Promise.all([this.shared.run(jobs.filter((_, i) => route[i] === 'shared')), this.quarantine.run(jobs.filter((_, i) => route[i] === 'quarantine'))]);
    const verdicts = route.map((r): Verdict => (r === 'flagged' ? { refused: this.flagged } : r === 'quarantine' ? quarantined.shift()! : shared.shift()!));
    if (verdicts.some((v) => 'refused' in v)) {
      if (this.suspectOwners.size >= OVERRUNS_LIMIT && !this.suspectOwners.has(owner)) this.suspectOwners.clear();
      this.suspectOwners.set(owner, this.now());
    }
    return verdicts;
  }

  async close(): Promise<void> {
    await Promise.all([this.shared.close(), this.quarantine.close()]);
  }
}

/**
 * Which job of the request the worker is at, in which stage, since when (wall time, and the
 * worker thread's CPU time then), and the worker's thread id: written by the worker, read by the
 * watchdog. The times are written first, so a read that sees a new job or stage sees its start
 * times too (Atomics are sequentially consistent): a watchdog never times a job from the
 * previous one's start.
 */
export class Progress {
  static readonly BYTES = 32;
  private readonly ints: Int32Array;
  private readonly times: BigInt64Array;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.ints = new Int32Array(buffer, 0, 4);
    this.times = new BigInt64Array(buffer, 16, 2);
  }

  /** Called once by the worker: the thread whose CPU time the watchdog reads (0: none, wall time only). */
  identify(tid: number): void {
    Atomics.store(this.ints, 2, tid);
  }

  enter(index: number, stage: Stage): void {
    const cpu = stage === STAGE.idle ? null : threadCpuNs(Atomics.load(this.ints, 2));
    Atomics.store(this.times, 1, cpu ?? -1n);
    Atomics.store(this.times, 0, BigInt(Math.round(clockMs() * 1000)));
    Atomics.store(this.ints, 0, index);
    Atomics.store(this.ints, 1, stage);
  }

  read(): { index: number; stage: Stage; since: number; cpuSince: bigint | null; tid: number } {
    const stage = Atomics.load(this.ints, 1) as Stage;
    const index = Atomics.load(this.ints, 0);
    const since = Number(Atomics.load(this.times, 0)) / 1000;
    const cpu = Atomics.load(this.times, 1);
    return { index, stage, since, cpuSince: cpu < 0n ? null : cpu, tid: Atomics.load(this.ints, 2) };
  }
}

/** Milliseconds on a clock both threads share: each thread's performance.now() counts from its own start. */
export function clockMs(): number {
  return performance.timeOrigin + performance.now();
}

function startParamsWorker(workerData: WorkerData): Worker {
  return startWorker(__dirname, 'params-check', { workerData, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
}
