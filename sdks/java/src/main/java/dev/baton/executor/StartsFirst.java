package dev.baton.executor;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Holds final callbacks back while runs wait in line for a worker, as the Node SDK's StartsFirst
 * (libs/executor-sdk/src/starts-first.ts): on a busy machine, starting a run that is due is worth
 * more than reporting one that ended — a report sets an engine and its database to work on the
 * same cores. The callback is in the spool already, so holding it delays the run's outcome, never
 * loses it.
 *
 * <p>One hold at a time: the callbacks that end during it wait for the same release — the line
 * empties, or {@link #MOST_HELD_MS} pass — so they go out together, in full batches.
 */
final class StartsFirst {
  /**
   * The longest a final callback is held: the outcome must not wait on a line that stays full.
   * The Node SDK's bound (a 4,000-run burst sent ahead started within ~0.6 s of its instant).
   */
  static final long MOST_HELD_MS = 250;

  private final BooleanSupplier lineWaiting;
  private final ScheduledExecutorService scheduler;
  /** The callbacks of the current hold; null while none is held. */
  private List<Runnable> held;
  private ScheduledFuture<?> timer;
  /** How many times the line emptied: a turn that saw it waiting holds nothing if it emptied since. */
  private long emptied;
  /** How many holds lasted MOST_HELD_MS (the line never emptied): what a test checks, whatever the machine's speed. */
  private long fullHolds;

  /** {@code lineWaiting}: whether runs wait in line for a worker now (and a hold may start). */
  StartsFirst(BooleanSupplier lineWaiting, ScheduledExecutorService scheduler) {
    this.lineWaiting = lineWaiting;
    this.scheduler = scheduler;
  }

  /** Runs {@code send} when a final callback may go: at once unless runs wait in line to start. */
  void turn(Runnable send) {
    long seen;
    synchronized (this) {
      seen = emptied;
    }
    if (lineWaiting.getAsBoolean()) {
      synchronized (this) {
        if (emptied == seen) {
          if (held == null) {
            List<Runnable> hold = held = new ArrayList<>();
            timer = scheduler.schedule(() -> releaseFull(hold), MOST_HELD_MS, TimeUnit.MILLISECONDS);
          }
          held.add(send);
          return;
        }
      }
    }
    send.run();
  }

  /** How many holds lasted MOST_HELD_MS. */
  synchronized long fullHolds() {
    return fullHolds;
  }

  private void releaseFull(List<Runnable> hold) {
    synchronized (this) {
      if (held == hold) fullHolds++;
    }
    release(hold);
  }

  /** No run waits in line any more: the held callbacks go. */
  void lineEmptied() {
    List<Runnable> hold;
    synchronized (this) {
      emptied++;
      hold = held;
      if (hold == null) return;
      timer.cancel(false);
    }
    release(hold);
  }

  private void release(List<Runnable> hold) {
    synchronized (this) {
      if (held != hold) return;
      held = null;
      timer = null;
    }
    hold.forEach(Runnable::run);
  }
}
