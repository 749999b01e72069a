import { AsyncResource } from 'node:async_hooks';
import { LaneFullError } from './lane-full-error';

/** How much a lane writes at once and lets wait. */
export interface GroupCommitLimits {
  /** Most weight one write takes (default 1,000 runs). */
  maxBatch: number;
  /** Most weight a key may have waiting behind its writes in flight (default 20,000 runs). */
  maxWaiting: number;
  /** Most writes of one key in flight at once (default 2): one fills while the other commits. */
  maxInFlight: number;
  /**
   * Items of this weight or more go in a lane of their own for their key (default 100 runs), with
   * its own maxInFlight and maxWaiting: a tenant's single submissions never wait behind its own
   * batches of hundreds (a trigger beside a backlog fed 1,000 runs a call, as in bench
   * task-backlog, waited for those INSERTs to commit when both writes in flight were theirs).
   */
  heavyFrom: number;
}

export const GROUP_COMMIT_LIMITS: GroupCommitLimits = { maxBatch: 1_000, maxWaiting: 20_000, maxInFlight: 2, heavyFrom: 100 };

interface Waiting<T, R> {
  item: T;
  weight: number;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

interface Lane<T, R> {
  /** Its key (the lanes are by key and by heavy or light). */
  key: string;
  waiting: Array<Waiting<T, R>>;
  weight: number;
  inFlight: number;
  /** A start is scheduled for the next turn of the event loop. */
  scheduled: boolean;
}

/**
 * Group commit, one lane per key (a tenant): an item is written on the next turn of the event loop
 * with whatever else arrived in the same turn, in a write of its own while the key has fewer than
 * maxInFlight writes in flight; otherwise it waits, and the items that waited go together in the
 * key's next write. So at a trickle each item is written alone, as soon as it comes (no timer, no
 * added wait), and under load the writes grow instead of multiplying: one transaction, one INSERT
 * and one commit serve a whole batch. Two in flight: a request that arrives while a batch commits
 * starts its own write at once instead of waiting for that commit (run-now's latency).
 *
 * At most maxInFlight writes per key, and as many more for its heavy items (heavyFrom): a tenant
 * sending thousands a second holds that many database connections, not the pool, and waits
 * behind itself, never behind another tenant's backlog. A lane's waiting weight is bounded
 * (LaneFullError past maxWaiting).
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
    const laneKey = weight >= this.limits.heavyFrom ? `${key}\u0000heavy` : key;
    let lane = this.lanes.get(laneKey);
    if (!lane) this.lanes.set(laneKey, (lane = { key, waiting: [], weight: 0, inFlight: 0, scheduled: false }));
    if (lane.weight > 0 && lane.weight + weight > this.limits.maxWaiting) return Promise.reject(new LaneFullError(lane.weight));
    const result = new Promise<R>((resolve, reject) => lane.waiting.push({ item, weight, resolve, reject }));
    lane.weight += weight;
    if (!lane.scheduled && lane.inFlight < this.limits.maxInFlight) {
      lane.scheduled = true;
      this.root.runInAsyncScope(() =>
        setImmediate(() => {
          lane.scheduled = false;
          this.start(laneKey, lane);
        }),
      );
    }
    return result;
  }

  /** Starts a write of what waits, if the key may have one more in flight; the next follows when it ends. */
  private start(laneKey: string, lane: Lane<T, R>): void {
    if (lane.waiting.length === 0 || lane.inFlight >= this.limits.maxInFlight) return;
    let weight = 0;
    let n = 0;
    while (n < lane.waiting.length && (n === 0 || weight + lane.waiting[n].weight <= this.limits.maxBatch)) weight += lane.waiting[n++].weight;
    const batch = lane.waiting.splice(0, n);
    lane.weight -= weight;
    lane.inFlight++;
    this.write(lane.key, batch.map((w) => w.item)).then(
      (results) => batch.forEach((w, i) => w.resolve(results[i])),
      (err: unknown) => batch.forEach((w) => w.reject(err)),
    ).finally(() => {
      lane.inFlight--;
      this.start(laneKey, lane);
      if (lane.inFlight === 0 && lane.waiting.length === 0 && !lane.scheduled) this.lanes.delete(laneKey);
    });
  }
}
