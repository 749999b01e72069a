/**
 * A small table a process re-reads from the database now and then (its tenants, the live
 * engines, the UP executors, the secrets a console signs wake-ups with) and everybody in the
 * process reads from memory in between. One read
 * in flight at a time — concurrent callers share it — and a failed read keeps the last snapshot
 * (`onError` says so) and counts as a read for its age, so a database that is down is not asked
 * again by every caller.
 */
export class TableSnapshot<T> {
  private snapshot: T;
  private loadedAt = -Infinity;
  private loading: Promise<void> | null = null;
  private readonly now: () => number;
  private readonly onError: (err: Error) => void;

  constructor(
    private readonly read: () => Promise<T>,
    options: { initial: T; now: () => number; onError: (err: Error) => void },
  ) {
    this.snapshot = options.initial;
    this.now = options.now;
    this.onError = options.onError;
  }

  /** The last snapshot read (the initial value before the first read). */
  get value(): T {
    return this.snapshot;
  }

  /** Ms since the last read ended; Infinity before the first. */
  get ageMs(): number {
    return this.now() - this.loadedAt;
  }

  /** Reads now (joining a read in flight). */
  refresh(): Promise<void> {
    this.loading ??= this.read()
      .then((snapshot) => {
        this.snapshot = snapshot;
      })
      .catch((err: Error) => this.onError(err))
      .finally(() => {
        this.loadedAt = this.now();
        this.loading = null;
      });
    return this.loading;
  }

  /** Reads, and waits for it, when the snapshot is older than `maxAgeMs`. */
  async fresh(maxAgeMs: number): Promise<T> {
    if (this.ageMs > maxAgeMs) await this.refresh();
    return this.snapshot;
  }

  /**
   * The first read is awaited (before it there is nothing to go on); after it, the snapshot at
   * hand, re-read in the background once older than `maxAgeMs` (refreshIfOlder).
   */
  async current(maxAgeMs: number): Promise<T> {
    return this.ageMs === Infinity ? this.fresh(0) : this.refreshIfOlder(maxAgeMs);
  }

  /** Reads in the background when the snapshot is older than `maxAgeMs`; the caller goes on with the one it has. */
  refreshIfOlder(maxAgeMs: number): T {
    if (this.ageMs >= maxAgeMs) void this.refresh();
    return this.snapshot;
  }
}
