package dev.baton.executor;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * SIGTERM / SIGINT → a graceful stop, then exit 0 (as the Node SDK's runExecutor); a second
 * signal ends the process at once. The JVM's own answer to SIGTERM (shutdown hooks, exit 143)
 * stays as the fallback where sun.misc.Signal is missing, with the stop in a shutdown hook.
 */
final class StopSignals {
  private StopSignals() {}

  static void install(Runnable stop) {
    Runtime.getRuntime().addShutdownHook(new Thread(stop, "baton-shutdown"));
    AtomicBoolean signalled = new AtomicBoolean();
    try {
      for (String name : new String[] {"TERM", "INT"}) {
        sun.misc.Signal.handle(new sun.misc.Signal(name), signal -> {
          if (signalled.getAndSet(true)) Runtime.getRuntime().halt(1);
          Threads.daemon("baton-stop", () -> {
            stop.run();
            System.exit(0);
          }).start();
        });
      }
    } catch (Throwable unavailable) {
      // the shutdown hook stops it
    }
  }
}
