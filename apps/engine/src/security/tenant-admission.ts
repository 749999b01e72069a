import { TokenBuckets } from '@baton/scheduling';

/** What bounds one tenant's signed requests on one engine; 0 turns a bound off. */
export interface TenantAdmissionLimits {
  /** Requests of one tenant worked on at once. 0: no bound (and nobody waits). */
  inFlight: number;
  /** Requests of one tenant waiting for one of its `inFlight` places; beyond, TENANT_BUSY. 0: none wait. */
  waiting: number;
  /** Requests of one tenant admitted per second, sustained (token bucket refill). 0: no rate bound. */
  ratePerSec: number;
  /** Requests of one tenant admitted at once after a quiet spell (the bucket's capacity); at least 1 when the rate is on. */
  burst: number;
}

export type AdmissionRefusal = 'TENANT_BUSY' | 'TENANT_RATE_LIMITED';

/**
 * - `admitted`: work on it now, then `release` the tenant;
 * - `queued`: its `onTurn` is called when one of the tenant's places is handed to it (by a
 *   `release`), and it must be released like an admitted one;
 * - `refused`: answer 429, with `retryAfterMs` as the hint.
 */
export type AdmissionVerdict = { kind: 'admitted' } | { kind: 'queued' } | { kind: 'refused'; reason: AdmissionRefusal; retryAfterMs: number };

/** A refused TENANT_BUSY request is told to come back after this: a place frees within a few requests' time. */
const BUSY_RETRY_AFTER_MS = 1_000;
/** Full buckets are forgotten (a full bucket is a new one) once this many tenants have one: bounds memory across many tenants. */
const PRUNE_ABOVE_BUCKETS = 1_000;

interface TenantLane {
  working: number;
  waiters: Array<() => void>;
}

/**
 * Per-tenant admission of signed requests on one engine — pure: no clock (every `now` is
 * passed in), no I/O. A tenant holds its own executor secret, so it can sign requests back to
 * back; what they cost this engine (database connections, event loop) is bounded per tenant,
 * keyed by the tenant the signature verified, so one tenant cannot spend another's budget.
 *
 * Two bounds, checked in this order:
 * 1. the rate: a token bucket per tenant (`ratePerSec`, `burst`) — what a tenant's requests may
 *    cost over time, however fast each one is;
 * 2. in flight: at most `inFlight` of the tenant's requests worked on at once — what protects the
 *    database pool and the other tenants' callbacks from a burst of slow ones. More wait in line,
 *    first come first served (a legitimate burst waits a moment instead of being refused); more
 *    than `waiting` in line are refused at once, rather than queued without end.
 * A request refused as busy gives its token back: it cost nothing, and its retry pays again.
 */
export class TenantAdmission {
  private readonly lanes = new Map<string, TenantLane>();
  private readonly buckets: TokenBuckets;

  constructor(private readonly limits: TenantAdmissionLimits) {
    const bucket = limits.ratePerSec > 0 ? { capacity: Math.max(1, limits.burst), refillPerSec: limits.ratePerSec } : undefined;
    this.buckets = new TokenBuckets({ limitsFor: () => bucket });
  }

  /** Decides about one verified request of `tenantId` at `now`; `onTurn` is kept only when the verdict is `queued`. */
  admit(tenantId: string, now: number, onTurn: () => void): AdmissionVerdict {
    if (this.limits.ratePerSec > 0) {
      if (this.buckets.size > PRUNE_ABOVE_BUCKETS) this.buckets.prune(now);
      if (!this.buckets.tryTakeAll(now, [tenantId])) {
        return { kind: 'refused', reason: 'TENANT_RATE_LIMITED', retryAfterMs: this.buckets.msUntilAvailable(now, [tenantId]) };
      }
    }
    if (this.limits.inFlight <= 0) return { kind: 'admitted' };
    const lane = this.lanes.get(tenantId) ?? { working: 0, waiters: [] };
    if (lane.working < this.limits.inFlight) {
      lane.working++;
      this.lanes.set(tenantId, lane);
      return { kind: 'admitted' };
    }
    if (lane.waiters.length >= this.limits.waiting) {
      if (this.limits.ratePerSec > 0) this.buckets.refundAll(now, [tenantId]);
      return { kind: 'refused', reason: 'TENANT_BUSY', retryAfterMs: BUSY_RETRY_AFTER_MS };
    }
    lane.waiters.push(onTurn);
    return { kind: 'queued' };
  }

  /** An admitted (or queued, once its turn came) request of `tenantId` is done: its place goes to the next in line, or is freed. */
  release(tenantId: string): void {
    const lane = this.lanes.get(tenantId);
    if (!lane) return;
    const next = lane.waiters.shift();
    if (next) {
      next(); // the place passes straight on: `working` stays as it is
      return;
    }
    lane.working--;
    if (lane.working <= 0) this.lanes.delete(tenantId);
  }

  /** The tenant's requests worked on now and waiting (for tests and metrics). */
  load(tenantId: string): { working: number; waiting: number } {
    const lane = this.lanes.get(tenantId);
    return { working: lane?.working ?? 0, waiting: lane?.waiters.length ?? 0 };
  }
}
