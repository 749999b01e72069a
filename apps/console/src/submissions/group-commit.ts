import { AsyncResource } from 'node:async_hooks';
import { LaneFullError } from './lane-full-error';

/** How much a lane writes at once and lets wait. */
export interface GroupCommitLimits {
  /** Most weight one write takes (default 1,000 runs). */
  maxBatch: number;
  /** Most weight a key may have waiting behind its write in flight (default 20,000 runs). */
  maxWaiting: number;
}

export const GROUP_COMMIT_LIMITS: GroupCommitLimits = { maxBatch: 1_000, maxWaiting: 20_000 };

interface Waiting<T, R> {
  item: T;
  weight: number;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

interface Lane<T, R> {
  waiting: Array<Waiting<T, R>>;
  weight: number;
  busy: boolean;
}

/**
 * Group commit, one lane per key (a tenant): items added while the key's write is in flight wait
 * and go together in its next write; an item added to an idle lane is written on the next turn of
 * the event loop, with whatever else arrived in the same turn. So at a trickle each item is
 * written alone, as soon as it comes (no timer, no added wait), and under load the writes grow
 * instead of multiplying: one transaction, one INSERT and one commit serve a whole batch.
 *
 * One write in flight per key: a tenant sending thousands a second holds one database connection,
 * not the pool, and waits behind itself, never behind another tenant's backlog. A key's waiting
 * weight is bounded (LaneFullError past maxWaiting).
 *
 * Writes run outside the async context of the request that happened to open the batch (an
 * AsyncResource made with the lane): a request's audit scope or log context never covers the other
 * requests' items. `write` answers each item's result in the order given, or throws to fail all.
 */
export class GroupCommit<T, R> {
  private readonly lanes = new Map<string, Lane<T, R>>();
  private readonly root = new AsyncResource('baton.group-commit');

  constructor(
    private readonly write: (key: string, items: T[]) => Promise<R[]>,
    private readonly limits: GroupCommitLimits = GROUP_COMMIT_LIMITS,
  ) {}

  /** `item`'s result once its batch is written; LaneFullError at once when the key is too far behind. */
  add(key: string, item: T, weight = 1): Promise<R> {
    let lane = this.lanes.get(key);
    if (!lane) this.lanes.set(key, (lane = { waiting: [], weight: 0, busy: false }));
    if (lane.weight > 0 && lane.weight + weight > this.limits.maxWaiting) return Promise.reject(new LaneFullError(lane.weight));
    const result = new Promise<R>((resolve, reject) => lane.waiting.push({ item, weight, resolve, reject }));
    lane.weight += weight;
    if (!lane.busy) {
      lane.busy = true;
      this.root.runInAsyncScope(() => setImmediate(() => void this.drain(key, lane)));
    }
    return result;
  }

  /** Writes the lane's batches one after another until nothing waits. */
  private async drain(key: string, lane: Lane<T, R>): Promise<void> {
    while (lane.waiting.length > 0) {
      let weight = 0;
      let n = 0;
      while (n < lane.waiting.length && (n === 0 || weight + lane.waiting[n].weight <= this.limits.maxBatch)) weight += lane.waiting[n++].weight;
      const batch = lane.waiting.splice(0, n);
      lane.weight -= weight;
      try {
        const results = await this.write(key, batch.map((w) => w.item));
        batch.forEach((w, i) => w.resolve(results[i]));
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    lane.busy = false;
    this.lanes.delete(key);
  }
}
