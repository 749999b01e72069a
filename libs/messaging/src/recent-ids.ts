/**
 * The last `capacity` ids seen, for dropping repeats (alarms are delivered at least once; a
 * consumer keeps the ids of what it has delivered). Oldest forgotten first. O(1) per call.
 */
export class RecentIds {
  private readonly ids = new Set<string>();

  constructor(readonly capacity = 100_000) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error('RecentIds: capacity must be a positive integer');
  }

  get size(): number {
    return this.ids.size;
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** Remembers `id`; false when it was already there (a repeat). */
  add(id: string): boolean {
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    if (this.ids.size > this.capacity) {
      // A Set iterates in insertion order: the first is the oldest.
      const oldest = this.ids.values().next().value as string;
      this.ids.delete(oldest);
    }
    return true;
  }
}
