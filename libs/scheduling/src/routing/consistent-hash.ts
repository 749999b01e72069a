import { hash32 } from './hash';
import type { ExecutorCandidate, RoutingContext, RoutingStrategy } from './types';

export interface ConsistentHashOptions {
  /** Points per executor on the ring: more points, more even shares, bigger ring. Default 160. */
  virtualNodes?: number;
}

/** Owner indices are packed below the 32-bit point in one float: < 2^53 stays exact. */
const OWNER_SPACE = 2 ** 21;

/**
 * Hash ring with virtual nodes: a key goes to the first executor clockwise
 * from hash(key), then the next distinct ones in ring order are the fallbacks.
 * The same key keeps the same executor (warm caches, per-key ordering on the
 * business side), and when one executor leaves — DOWN or gone from the list —
 * only the keys it owned move, to their ring successors; everyone else's stay.
 * DOWN executors keep their points on the ring and are skipped on the walk,
 * so a flapping executor does not force a rebuild.
 */
export class ConsistentHashStrategy implements RoutingStrategy {
  readonly kind = 'CONSISTENT_HASH';
  private readonly virtualNodes: number;
  private ringKey: string | undefined;
  private ids: string[] = [];
  /** Sorted (point * OWNER_SPACE + owner index). */
  private ring = new Float64Array(0);

  constructor(options: ConsistentHashOptions = {}) {
    this.virtualNodes = Math.max(1, Math.floor(options.virtualNodes ?? 160));
  }

  order<C extends ExecutorCandidate>(candidates: readonly C[], context?: RoutingContext): C[] {
    const key = context?.key;
    if (key === undefined) throw new TypeError('CONSISTENT_HASH routing needs context.key');
    this.ensureRing(candidates);
    const byOwner = new Array<C | undefined>(this.ids.length);
    const index = new Map(this.ids.map((id, i) => [id, i]));
    let wanted = 0;
    for (const c of candidates) {
      const i = index.get(c.id) as number;
      if (c.state === 'UP' && byOwner[i] === undefined) {
        byOwner[i] = c;
        wanted++;
      }
    }
    const out: C[] = [];
    const ring = this.ring;
    if (wanted === 0) return out;
    const start = this.firstAtOrAfter(hash32(key));
    for (let n = 0; n < ring.length && out.length < wanted; n++) {
      const owner = ring[(start + n) % ring.length] % OWNER_SPACE;
      const c = byOwner[owner];
      if (c !== undefined) {
        out.push(c);
        byOwner[owner] = undefined; // once each
      }
    }
    return out;
  }

  private ensureRing(candidates: readonly ExecutorCandidate[]): void {
    const ids = [...new Set(candidates.map((c) => c.id))].sort();
    const ringKey = ids.join('\n');
    if (ringKey === this.ringKey) return;
    if (ids.length >= OWNER_SPACE) throw new RangeError(`too many executors for one ring (${ids.length})`);
    const ring = new Float64Array(ids.length * this.virtualNodes);
    let k = 0;
    ids.forEach((id, owner) => {
      for (let v = 0; v < this.virtualNodes; v++) ring[k++] = hash32(`${id}#${v}`) * OWNER_SPACE + owner;
    });
    ring.sort(); // numeric; equal points are ordered by owner index, i.e. by id: deterministic
    this.ids = ids;
    this.ring = ring;
    this.ringKey = ringKey;
  }

  /** Index of the first point >= h, wrapping to 0. */
  private firstAtOrAfter(h: number): number {
    const target = h * OWNER_SPACE;
    let lo = 0;
    let hi = this.ring.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ring[mid] < target) lo = mid + 1;
      else hi = mid;
    }
    return lo === this.ring.length ? 0 : lo;
  }
}
