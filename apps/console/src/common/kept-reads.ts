/**
 * Rows read from the database, kept for `keepMs` after their read so that a stream of requests
 * needing the same rows reads them once per period instead of once per request. For reads whose
 * staleness is bounded by that period, or checked later (a version compared under a lock). A key
 * past `maxKeys` clears what is kept first: a tenant sending many distinct keys costs reads, never
 * memory.
 */
export class KeptReads<V> {
  private readonly kept = new Map<string, { value: V; until: number }>();

  /**
   * @param keepMs how long a read is kept (no default: the caller states its bound)
   * @param maxKeys most keys kept at once (default 10,000)
   */
  constructor(
    private readonly keepMs: number,
    private readonly maxKeys = 10_000,
  ) {}

  /** The value kept for `key` if read less than keepMs before `now`. */
  get(key: string, now: number): V | undefined {
    const entry = this.kept.get(key);
    if (!entry) return undefined;
    if (entry.until > now) return entry.value;
    this.kept.delete(key);
    return undefined;
  }

  /** Keeps `value`, read at `now`. */
  set(key: string, value: V, now: number): void {
    if (this.kept.size >= this.maxKeys && !this.kept.has(key)) this.kept.clear();
    this.kept.set(key, { value, until: now + this.keepMs });
  }

  /** Forgets `key`: its next read goes to the database. */
  forget(key: string): void {
    this.kept.delete(key);
  }
}
