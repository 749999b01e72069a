package dev.baton.executor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.After;
import org.junit.Test;

/** Final callbacks wait while runs wait in line to start: until the line empties, at most MOST_HELD_MS. */
public class StartsFirstTest {
  private final ScheduledThreadPoolExecutor scheduler = Threads.scheduler("test-timers", 1);
  private final AtomicBoolean lineWaiting = new AtomicBoolean();
  private final StartsFirst gate = new StartsFirst(lineWaiting::get, scheduler);
  private final List<String> sent = new CopyOnWriteArrayList<>();

  @After
  public void stopTimers() {
    scheduler.shutdownNow();
  }

  @Test
  public void aCallbackGoesAtOnceWhenNoRunWaitsInLine() {
    gate.turn(() -> sent.add("a"));
    assertEquals(List.of("a"), sent);
  }

  @Test
  public void callbacksAreHeldWhileRunsWaitInLineAllOfThemUntilTheLineEmpties() throws Exception {
    lineWaiting.set(true);
    gate.turn(() -> sent.add("a"));
    Thread.sleep(100);
    gate.turn(() -> sent.add("b"));
    assertEquals(List.of(), sent);
    lineWaiting.set(false);
    gate.lineEmptied();
    assertEquals(List.of("a", "b"), sent);
  }

  @Test
  public void aFullLineHoldsThemAtMostMostHeldMsThenANewHoldStarts() throws Exception {
    lineWaiting.set(true);
    long heldAt = System.nanoTime();
    gate.turn(() -> sent.add("a"));
    // Until it goes (a hang guard, not a measure: a loaded machine only makes it later).
    while (sent.isEmpty() && System.nanoTime() - heldAt < 60_000_000_000L) Thread.sleep(1);
    long heldMs = (System.nanoTime() - heldAt) / 1_000_000;
    assertEquals(List.of("a"), sent);
    assertTrue("released after " + heldMs + " ms", heldMs >= StartsFirst.MOST_HELD_MS);
    assertEquals(1, gate.fullHolds());
    gate.turn(() -> sent.add("b"));
    assertEquals("the line is still full: a new hold", List.of("a"), sent);
  }
}
