import { Injectable } from '@nestjs/common';
import { DEFAULT_MAX_SKEW_MS } from '@baton/protocol';

/** Most signatures remembered at once; beyond it the oldest are forgotten early (see below). */
const MAX_ENTRIES = 500_000;

/**
 * Signatures this node has accepted, each until its timestamp leaves the skew window (after
 * that `verify` refuses it as STALE anyway). A second request with the same signature inside
 * the window is a replay: refused with 401.
 *
 * Per node, in memory. Across nodes a replay can reach a second engine; it is harmless there
 * because every effect of a callback is a guarded transition (a replayed outcome finds the run
 * already ended: 409, nothing changes; a replayed heartbeat only refreshes heartbeat_at). The
 * one effect that is not guarded — an interim callback's log lines and business alarms — can
 * at worst be stored twice. The SDK signs every (re)try anew, so retries are not replays.
 * Bounded: past MAX_ENTRIES the oldest entries are dropped before they expire, which only
 * narrows this node's replay detection to the guarded-transition defence above.
 */
@Injectable()
export class ReplayGuard {
  private readonly seen = new Map<string, number>();

  constructor(private readonly maxSkewMs = DEFAULT_MAX_SKEW_MS) {}

  get size(): number {
    return this.seen.size;
  }

  /**
   * Remembers an accepted signature; false when it was already accepted (a replay). Keyed on the
   * signature string, which is safe only because `verify` accepts nothing but its canonical
   * spelling (isCanonicalSignature): one string per byte sequence, so an upper-cased or padded
   * copy of a captured signature never reaches here as a fresh key.
   */
  accept(signature: string, timestamp: number, now: number): boolean {
    this.evict(now);
    const expires = this.seen.get(signature);
    if (expires !== undefined && expires >= now) return false;
    this.seen.set(signature, timestamp + this.maxSkewMs);
    return true;
  }

  private evict(now: number): void {
    // Insertion order is roughly expiry order (timestamps are near `now`): stop at the first live one.
    for (const [signature, expires] of this.seen) {
      if (expires >= now && this.seen.size <= MAX_ENTRIES) break;
      this.seen.delete(signature);
    }
  }
}
