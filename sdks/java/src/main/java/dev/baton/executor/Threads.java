package dev.baton.executor;

import java.util.concurrent.ScheduledThreadPoolExecutor;

/** The SDK's threads are daemons: the HTTP server's dispatcher thread is what keeps a process alive. */
final class Threads {
  private Threads() {}

  static Thread daemon(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    return t;
  }

  static ScheduledThreadPoolExecutor scheduler(String name, int threads) {
    ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(threads, r -> daemon(name, r));
    s.setRemoveOnCancelPolicy(true);
    return s;
  }
}
