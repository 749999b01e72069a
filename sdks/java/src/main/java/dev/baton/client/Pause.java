package dev.baton.client;

import java.time.Duration;

/** How the client waits before sending again: {@code Thread.sleep}, or a test's recorder. */
@FunctionalInterface
interface Pause {
  Pause SLEEP = wait -> Thread.sleep(wait.toMillis());

  void pause(Duration wait) throws InterruptedException;
}
