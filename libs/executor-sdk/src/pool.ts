import { SYSTEM_CLOCK, type RunClock } from './run-clock';

/**
 * A bounded worker pool: at most `concurrency` jobs run at once, at most `queueLimit` wait.
 * `tryAdd` never blocks: it says whether the job was taken. A job's slot is held until the
 * promise returned by `work` settles.
 *
 * A job may be given an instant to start at (a run the engine sent ahead of its due time): it
 * waits for it apart from the queue, counted as queued, and joins the pool at its instant — it
 * starts then if a worker is free, else it joins its line behind the jobs already in it. Jobs
 * sharing an instant share one timer, so a burst sent ahead costs one timer, not one a run.
 * Instants are read and awaited on `clock` (the executor's; the system clock by default). When an
 * instant comes, `admit` says which of its jobs join the pool (the executor lets go of those it
 * may not start: the sent-ahead lease, ContactLease); the others are out of the pool.
 *
 * The jobs in line wait in one line per `lineOf(job)` (the executor: per task), and the lines take
 * the free workers in turn, each line's jobs first come first: one task's thousand runs queued here
 * cost another task's run one job's wait, not the thousand's (bench task-backlog --bulk-ms, where
 * one line made a tenant's other task wait 42 s behind its bulk task's queue and the engine's).
 */
export class WorkerPool<J> {
  /** The lines of jobs waiting for a worker, in their turn's order: the first line's first job goes next. */
  private readonly lines = new Map<unknown, J[]>();
  /** Jobs in `lines`. */
  private lined = 0;
  private active = 0;
  private idleWaiters: Array<() => void> = [];
  private lineWaiters: Array<() => void> = [];
  /** Jobs waiting for their instant, by instant (epoch ms). */
  private readonly scheduled = new Map<number, J[]>();
  private readonly instantOf = new Map<J, number>();
  private readonly timers = new Map<number, unknown>();

  constructor(
    readonly concurrency: number,
    readonly queueLimit: number,
    private readonly work: (job: J) => Promise<void>,
    private readonly clock: RunClock = SYSTEM_CLOCK,
    /** Which line a job waits in (default: one line for all). */
    private readonly lineOf: (job: J) => unknown = () => null,
    /** Of the jobs whose instant has come, those that join the pool (default: all); the caller ends the others. */
    private readonly admit: (jobs: J[]) => J[] = (jobs) => jobs,
  ) {}

  get running(): number {
    return this.active;
  }

  /** Jobs accepted and not started: those in line and those waiting for their instant. */
  get queued(): number {
    return this.lined + this.instantOf.size;
  }

  /**
   * Starts the job (if a slot is free) or queues it; false when both are full. With `startAt` in
   * the future it waits for that instant instead, taken while the pool's places (concurrency +
   * queueLimit) are not all spoken for — the room an executor advertises as its credit. A job to
   * start now still takes a free worker: the jobs waiting for their instant may then find them all
   * busy and wait in line, as they would have had they been sent at their instant.
   */
  tryAdd(job: J, startAt?: number): 'started' | 'queued' | 'scheduled' | false {
    if (startAt !== undefined && startAt > this.clock.now()) {
      if (this.active + this.queued >= this.concurrency + this.queueLimit) return false;
      this.schedule(job, startAt);
      return 'scheduled';
    }
    if (this.active < this.concurrency) {
      this.start(job);
      return 'started';
    }
    if (this.queued < this.queueLimit) {
      this.line(job);
      return 'queued';
    }
    return false;
  }

  /** Takes a job that has not started out of the pool (in line or waiting for its instant); false if it is neither. */
  remove(job: J): boolean {
    const at = this.instantOf.get(job);
    if (at !== undefined) {
      this.instantOf.delete(job);
      const jobs = this.scheduled.get(at)!;
      jobs.splice(jobs.indexOf(job), 1);
      if (jobs.length === 0) this.unschedule(at);
      this.notifyIfIdle();
      return true;
    }
    const key = this.lineOf(job);
    const line = this.lines.get(key);
    const i = line ? line.indexOf(job) : -1;
    if (i < 0) return false;
    line!.splice(i, 1);
    this.lined--;
    if (line!.length === 0) this.lines.delete(key);
    this.notifyIfLineEmpty();
    this.notifyIfIdle();
    return true;
  }

  /**
   * Empties the queue — jobs in line, then those waiting for an instant after `keepUntil` (all of
   * them by default) — and returns what was in it.
   */
  drainQueue(keepUntil = -Infinity): J[] {
    const jobs = [...this.lines.values()].flat();
    this.lines.clear();
    this.lined = 0;
    jobs.push(...this.takeWaiting(keepUntil));
    this.notifyIfLineEmpty();
    return jobs;
  }

  /** Takes the jobs waiting for an instant after `after` (all of them by default) out of the pool, the earliest first. */
  takeWaiting(after = -Infinity): J[] {
    const jobs: J[] = [];
    for (const at of [...this.scheduled.keys()].sort((a, b) => a - b)) {
      if (at <= after) continue;
      for (const job of this.scheduled.get(at)!) {
        jobs.push(job);
        this.instantOf.delete(job);
      }
      this.unschedule(at);
    }
    this.notifyIfIdle();
    return jobs;
  }

  /** Jobs whose time has come waiting in line for a worker. */
  get inLine(): number {
    return this.lined;
  }

  /** Resolves when no job waits in line for a worker (at once when none does). */
  whenLineEmpty(): Promise<void> {
    if (this.lined === 0) return Promise.resolve();
    return new Promise((resolve) => this.lineWaiters.push(resolve));
  }

  /** Resolves when nothing runs and nothing waits. */
  whenIdle(): Promise<void> {
    if (this.active === 0 && this.queued === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private schedule(job: J, at: number): void {
    this.instantOf.set(job, at);
    const jobs = this.scheduled.get(at);
    if (jobs) {
      jobs.push(job);
      return;
    }
    this.scheduled.set(at, [job]);
    this.arm(at);
  }

  private arm(at: number): void {
    this.timers.set(
      at,
      this.clock.setTimeout(() => this.release(at), Math.max(0, at - this.clock.now())),
    );
  }

  /** The instant has come: its jobs join the pool in the order they came. */
  private release(at: number): void {
    // A timer may fire a millisecond before the wall clock reaches its instant: never start early.
    if (this.clock.now() < at) return this.arm(at);
    const jobs = this.scheduled.get(at) ?? [];
    this.unschedule(at);
    for (const job of jobs) this.instantOf.delete(job);
    for (const job of this.admit(jobs)) {
      if (this.active < this.concurrency) this.start(job);
      else this.line(job);
    }
    this.notifyIfIdle();
  }

  private unschedule(at: number): void {
    this.clock.clearTimeout(this.timers.get(at));
    this.timers.delete(at);
    this.scheduled.delete(at);
  }

  /** Puts a job at the end of its line (a new line takes its turn after the lines there). */
  private line(job: J): void {
    const key = this.lineOf(job);
    const line = this.lines.get(key);
    if (line) line.push(job);
    else this.lines.set(key, [job]);
    this.lined++;
  }

  /** The first job of the line whose turn it is; that line goes to the back (a Map keeps the order keys were set in). */
  private next(): J | undefined {
    const first = this.lines.entries().next();
    if (first.done) return undefined;
    const [key, line] = first.value;
    const job = line.shift()!;
    this.lined--;
    this.lines.delete(key);
    if (line.length > 0) this.lines.set(key, line);
    return job;
  }

  private start(job: J): void {
    this.active++;
    // The job starts on a later turn of the event loop: the transport writes the 202 first.
    setImmediate(() => {
      this.work(job)
        .catch(() => undefined)
        .finally(() => {
          this.active--;
          const next = this.next();
          if (next !== undefined) {
            this.start(next);
            this.notifyIfLineEmpty();
          } else this.notifyIfIdle();
        });
    });
  }

  private notifyIfLineEmpty(): void {
    if (this.lined !== 0 || this.lineWaiters.length === 0) return;
    const waiters = this.lineWaiters;
    this.lineWaiters = [];
    waiters.forEach((w) => w());
  }

  private notifyIfIdle(): void {
    if (this.active !== 0 || this.queued !== 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    waiters.forEach((w) => w());
  }
}
