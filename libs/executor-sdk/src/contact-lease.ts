import { sentAheadLeaseMs } from '@baton/protocol';

/**
 * The sent-ahead lease (protocol 3; docs/EXECUTOR-PROTOCOL.md, "Runs sent ahead and contact"): a
 * run held for its instant starts only if the last heartbeat an engine answered left no more than
 * 2 × that answer's `intervalMs` before the instant. An executor cut off from the engines lets its
 * held runs go instead of starting them, and the engines, which cannot tell a dead executor from a
 * cut-off one, can dispatch those again elsewhere without a run starting twice. The acks'
 * `handBacks` says when they did: a change means some held runs may be running elsewhere already.
 *
 * Time is read on `now` (a monotonic clock in production): a wall clock set back would stretch the lease.
 */
export class ContactLease {
  /** When the round of the last heartbeat an engine answered began; null: none answered yet. */
  private heardAt: number | null = null;
  private leaseMs = 0;
  /** The last ack's `handBacks`; undefined until an ack carries it. */
  private handBacks: number | undefined;

  constructor(private readonly now: () => number) {}

  /** A reading of `now`, to pass to heard() for a heartbeat round beginning. */
  mark(): number {
    return this.now();
  }

  /**
   * An engine answered the heartbeat round that began at `sentAt` (mark()) with `intervalMs` and
   * `handBacks`. True when `handBacks` changed: drop every run held for a later instant.
   */
  heard(sentAt: number, intervalMs: number, handBacks: unknown): boolean {
    if (this.heardAt === null || sentAt >= this.heardAt) {
      this.heardAt = sentAt;
      this.leaseMs = sentAheadLeaseMs(intervalMs);
    }
    if (typeof handBacks !== 'number') return false;
    const changed = this.handBacks !== undefined && handBacks !== this.handBacks;
    this.handBacks = handBacks;
    return changed;
  }

  /** Whether a run held for its instant may start now. */
  get fresh(): boolean {
    return this.heardAt !== null && this.now() - this.heardAt <= this.leaseMs;
  }

  /** How long ago the last answered heartbeat round began (ms), for the log; null: never. */
  get silentForMs(): number | null {
    return this.heardAt === null ? null : Math.round(this.now() - this.heardAt);
  }
}
