package dev.baton.executor;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The sent-ahead lease (protocol 3; docs/EXECUTOR-PROTOCOL.md, "Runs sent ahead and contact"), as
 * the Node SDK keeps it (libs/executor-sdk/src/contact-lease.ts): a run held for its instant starts
 * only if the last heartbeat an engine answered left no more than 2 × that answer's
 * {@code intervalMs} before the instant. An executor cut off from the engines lets its held runs
 * go instead of starting them, so the engines, which cannot tell a dead executor from a cut-off
 * one, may dispatch them again elsewhere without a run starting twice. The acks'
 * {@code handBacks} says when they did: a change means some held runs may be running elsewhere
 * already. Times are {@link System#nanoTime()} readings: a wall clock set back would stretch the lease.
 */
final class ContactLease {
  /** How many heartbeat intervals a run sent ahead may start after the last answered heartbeat. */
  static final int LEASE_INTERVALS = 2;

  private boolean heard;
  /** When the round of the last answered heartbeat began (nanoTime). */
  private long heardAt;
  private long leaseNanos;
  /** The last ack's handBacks; null until an ack carries it. */
  private Long handBacks;

  /**
   * An engine answered the heartbeat round begun at {@code sentAt} (nanoTime), the executor now
   * beating every {@code intervalMs}. True when the ack's {@code handBacks} changed: let go of every
   * run held for a later instant.
   */
  synchronized boolean heard(long sentAt, long intervalMs, JsonNode ackHandBacks) {
    if (!heard || sentAt - heardAt >= 0) {
      heard = true;
      heardAt = sentAt;
      leaseNanos = LEASE_INTERVALS * intervalMs * 1_000_000L;
    }
    if (ackHandBacks == null || !ackHandBacks.isIntegralNumber()) return false;
    boolean changed = handBacks != null && handBacks != ackHandBacks.asLong();
    handBacks = ackHandBacks.asLong();
    return changed;
  }

  /** Whether a run held for its instant may start now. */
  synchronized boolean fresh() {
    return heard && System.nanoTime() - heardAt <= leaseNanos;
  }

  /** How long no engine has answered, for the log and the callback's error. */
  synchronized String silence() {
    return heard ? "no engine has answered a heartbeat for " + (System.nanoTime() - heardAt) / 1_000_000 + " ms" : "no engine has answered a heartbeat yet";
  }
}
