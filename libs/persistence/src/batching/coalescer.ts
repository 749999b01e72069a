/**
 * Coalesces concurrent single-item requests into batches: `push(item)` resolves with that item's
 * own result once the batch holding it has been flushed.
 *
 * Flushing is "group commit" shaped: when nothing is being flushed, a push schedules a flush
 * for the end of the current turn of the event loop (setImmediate), so a quiet system pays no
 * wait; while a flush is in flight, new items gather and go together as the next batch the
 * moment it ends. Under load batches grow by themselves, with no timer to tune.
 *
 * `flush` returns one result per item, in order. If it throws, every item of that batch is
 * rejected with the error (the caller's flush decides whether to retry items one by one).
 */
export class Coalescer<I, O> {
  private queue: Array<{ item: I; resolve: (o: O) => void; reject: (e: unknown) => void }> = [];
  private flushing = false;
  private scheduled = false;

  /** @param maxBatch most items per flush (default 500 — MAX_ROWS_PER_STATEMENT). */
  constructor(
    private readonly flush: (items: I[]) => Promise<O[]>,
    private readonly maxBatch = 500,
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
    if (this.flushing || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const results = await this.flush(batch.map((b) => b.item));
          if (results.length !== batch.length) throw new Error(`flush returned ${results.length} results for ${batch.length} items`);
          batch.forEach((b, i) => b.resolve(results[i]));
        } catch (err) {
          for (const b of batch) b.reject(err);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}
