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
   * @param maxKeys most keys kept at once (default 1,000: what a value may weigh, a task's 64 KB of params, times this is the bound)
   */
  constructor(
    private readonly keepMs: number,
    private readonly maxKeys = 1_000,
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

  /**
   * The values of `keys`: those kept, and the others from one `read` of them (kept in turn). A key
   * `read` does not answer is absent from the result and not kept: its next call reads it again.
   */
  async through<K extends string | number>(prefix: string, keys: readonly K[], now: number, read: (missing: K[]) => Promise<Map<K, V>>): Promise<Map<K, V>> {
    const found = new Map<K, V>();
    const missing: K[] = [];
    for (const key of keys) {
      const value = this.get(`${prefix}/${key}`, now);
      if (value === undefined) missing.push(key);
      else found.set(key, value);
    }
    if (missing.length === 0) return found;
    for (const [key, value] of await read(missing)) {
      this.set(`${prefix}/${key}`, value, now);
      found.set(key, value);
    }
    return found;
  }

  /** Forgets `key`: its next read goes to the database. */
  forget(key: string): void {
    this.kept.delete(key);
  }
}
