/**
 * Runs each key's jobs one after another (jobs of different keys run side by side). The console
 * runs a tenant's heavy work through it, keyed by tenant — backfills: five sent at once by one
 * tenant take the event loop's turns of one, so the other tenants' requests wait behind one
 * slice at most, never behind five interleaved ones; webhook name lookups and test POSTs: one
 * tenant holds at most one of the threads lookups run on.
 */
export class OneAtATime {
  private readonly tails = new Map<string, Promise<unknown>>();
  private readonly counts = new Map<string, number>();

  run<T>(key: string, job: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    this.counts.set(key, this.pending(key) + 1);
    const result = previous.then(job, job);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      const left = this.pending(key) - 1;
      if (left > 0) this.counts.set(key, left);
      else this.counts.delete(key);
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Jobs of `key` running or waiting. */
  pending(key: string): number {
    return this.counts.get(key) ?? 0;
  }
}
