/**
 * A bounded worker pool: at most `concurrency` jobs run at once, at most `queueLimit` wait.
 * `tryAdd` never blocks: it says whether the job was taken. A job's slot is held until the
 * promise returned by `work` settles.
 */
export class WorkerPool<J> {
  private readonly waiting: J[] = [];
  private active = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(
    readonly concurrency: number,
    readonly queueLimit: number,
    private readonly work: (job: J) => Promise<void>,
  ) {}

  get running(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** Starts the job (if a slot is free) or queues it; false when both are full. */
  tryAdd(job: J): 'started' | 'queued' | false {
    if (this.active < this.concurrency) {
      this.start(job);
      return 'started';
    }
    if (this.waiting.length < this.queueLimit) {
      this.waiting.push(job);
      return 'queued';
    }
    return false;
  }

  /** Takes a queued job out of the queue; false if it is not waiting. */
  remove(job: J): boolean {
    const i = this.waiting.indexOf(job);
    if (i < 0) return false;
    this.waiting.splice(i, 1);
    return true;
  }

  /** Empties the queue and returns what was in it. */
  drainQueue(): J[] {
    return this.waiting.splice(0);
  }

  /** Resolves when nothing runs and nothing waits. */
  whenIdle(): Promise<void> {
    if (this.active === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private start(job: J): void {
    this.active++;
    // The job starts on a later turn of the event loop: the transport writes the 202 first.
    setImmediate(() => {
      this.work(job)
        .catch(() => undefined)
        .finally(() => {
          this.active--;
          const next = this.waiting.shift();
          if (next !== undefined) this.start(next);
          else if (this.active === 0) {
            const waiters = this.idleWaiters;
            this.idleWaiters = [];
            waiters.forEach((w) => w());
          }
        });
    });
  }
}
