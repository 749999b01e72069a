import { Injectable } from '@nestjs/common';

/** Width of one counting bucket. */
const BUCKET_MS = 250;

/**
 * How many runs of each tenant this engine's executors accepted lately — what they showed they
 * can take in a look-ahead's time, so the claimer may hold as many again (claim-turn.ts). The
 * dispatch side reports each 202 (`accepted`); the claimer reads `recent`. A fast tenant's budget
 * thus grows with its executors' pace (a 4,000-run burst on quick handlers is held as fast as it
 * is sent), a slow one's stays at what its executors' places allow. It also keeps when a run of
 * the tenant taken unclaimed (a wake-up's, RunClaims.readNamed) last lost its DISPATCHED mark to a
 * peer's claim (`lostUnclaimed`): the claimer then claims the tenant's next wake-ups by id while
 * they wait behind a line here (ClaimerService.readNamed).
 */
@Injectable()
export class TenantPace {
  private readonly buckets = new Map<string, { at: number[]; n: number[] }>();
  private readonly losses = new Map<string, number>();

  lostUnclaimed(tenantId: string, now: number): void {
    this.losses.set(tenantId, now);
  }

  /** Whether a run of the tenant taken unclaimed lost its mark to a peer at `since` or later. */
  lostUnclaimedSince(tenantId: string, since: number): boolean {
    const at = this.losses.get(tenantId);
    if (at === undefined) return false;
    if (at >= since) return true;
    this.losses.delete(tenantId); // older than any window asked for: forgotten
    return false;
  }

  accepted(tenantId: string, now: number): void {
    let b = this.buckets.get(tenantId);
    if (!b) this.buckets.set(tenantId, (b = { at: [], n: [] }));
    const slot = Math.floor(now / BUCKET_MS);
    const last = b.at.length - 1;
    if (last >= 0 && b.at[last] === slot) b.n[last]++;
    else {
      b.at.push(slot);
      b.n.push(1);
    }
  }

  /** Runs of the tenant accepted within the last `windowMs` (to a bucket's width). */
  recent(tenantId: string, now: number, windowMs: number): number {
    const b = this.buckets.get(tenantId);
    if (!b) return 0;
    const from = Math.floor((now - windowMs) / BUCKET_MS);
    let drop = 0;
    while (drop < b.at.length && b.at[drop] <= from) drop++;
    if (drop > 0) {
      b.at.splice(0, drop);
      b.n.splice(0, drop);
    }
    if (b.at.length === 0) {
      this.buckets.delete(tenantId);
      return 0;
    }
    let sum = 0;
    for (const n of b.n) sum += n;
    return sum;
  }
}
