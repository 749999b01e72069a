/**
 * Coalesces concurrent single-item requests into batches: `push(item)` resolves with that item's
 * own result once the batch holding it has been flushed.
 *
 * Flushing is "group commit" shaped: while fewer than `concurrency` flushes are in flight, a
 * push schedules one for the end of the current turn of the event loop (setImmediate), so a
 * quiet system pays no wait; when all are busy, new items gather and go together as the next
 * batch the moment one ends. Under load batches grow by themselves, with no timer to tune.
 * More than one flush at a time keeps the latency of each item low when callers wait for their
 * result before sending more (an executor has only so many callbacks in flight): measured on
 * the burst bench, a single serial flush made callbacks wait behind each other's batches.
 *
 * `flush` returns one result per item, in order. If it throws, every item of that batch is
 * rejected with the error (the caller's flush decides whether to retry items one by one).
 */
export class Coalescer<I, O> {
  private queue: Array<{ item: I; resolve: (o: O) => void; reject: (e: unknown) => void }> = [];
  private flushing = 0;
  private scheduled = false;

  /**
   * @param options.maxBatch most items per flush (default 500: the engine's rows per multi-row statement).
   * @param options.concurrency most flushes in flight at once (default 1).
   */
  constructor(
    private readonly flush: (items: I[]) => Promise<O[]>,
    private readonly options: { maxBatch?: number; concurrency?: number } = {},
  ) {}

  /** Items waiting or being flushed. */
  get pending(): number {
    return this.queue.length;
  }

  push(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.flushing >= (this.options.concurrency ?? 1) || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.flushing >= (this.options.concurrency ?? 1) || this.queue.length === 0) return;
    this.flushing++;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.options.maxBatch ?? 500);
        try {
          const results = await this.flush(batch.map((b) => b.item));
          if (results.length !== batch.length) throw new Error(`flush returned ${results.length} results for ${batch.length} items`);
          batch.forEach((b, i) => b.resolve(results[i]));
        } catch (err) {
          for (const b of batch) b.reject(err);
        }
      }
    } finally {
      this.flushing--;
    }
  }
}
