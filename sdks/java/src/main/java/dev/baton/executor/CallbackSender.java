package dev.baton.executor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Delivers final callbacks until an engine takes them (2xx, or 409: it has the outcome already)
 * or refuses them for good (400/413/422): a round tries each engine URL once, in the dispatch's
 * order, the next one also when an engine has not answered within {@code rerouteAfterMs} (as the
 * Node SDK's engineRound: any engine takes any callback, and a second copy gets 409) — that
 * engine is set aside and keeps its request, whose late answer still counts; after a failed
 * round the callback waits a jittered exponential backoff, and a success wakes every waiting one
 * (the engines are back) — but one refused with 429 (an engine's TENANT_BUSY /
 * TENANT_RATE_LIMITED) waits at least its {@code Retry-After}, success or not: waking it would
 * send the tenant's backlog into its bounds again on every success. Each engine URL's
 * {@link EngineBatches} sends what is ready for it together; at most {@code requests} callback
 * requests are in flight, all engines together (not counting those unanswered for
 * rerouteAfterMs). Each callback is in the spool until it is settled.
 */
final class CallbackSender {
  private static final System.Logger LOG = System.getLogger("dev.baton.executor");

  /** One final callback on its way. */
  static final class Entry {
    final String key;
    final List<String> urls;
    final byte[] json;
    int tries;
    /** This round: the engine URLs in the order tried, the next one's index, what the tried ones answered. */
    List<String> order = List.of();
    int next;
    final List<String> failures = new ArrayList<>();
    /** This round's longest {@code Retry-After} (ms). */
    long holdMs;
    /** This round: engines that have the callback and have not answered yet. */
    int outstanding;
    /** Counts the tries: a reroute timer acts only if no engine was tried or answered since it was set. */
    int tryId;
    /** An engine took it or refused it for good: late answers are dropped, and engines not yet sending it leave it out. */
    volatile boolean settled;
    /** Not sent again before this (epoch ms): an engine's {@code Retry-After}. */
    volatile long heldUntil;

    Entry(String key, List<String> urls, byte[] json) {
      this.key = key;
      this.urls = urls;
      this.json = json;
    }

    /** The run's trace on a line about this callback (TraceFields); read from the callback only when a line is written. */
    String logFields() {
      try {
        return TraceFields.of(Json.parse(json));
      } catch (java.io.IOException e) {
        return "";
      }
    }
  }

  private final EngineClient client;
  private final List<String> engineUrls;
  private final long baseMs;
  private final long maxMs;
  private final long rerouteAfterMs;
  private final ScheduledExecutorService scheduler;
  private final CallbackSpool spool;
  private final Semaphore requests;
  private final StartsFirst startsFirst;
  private final ExecutorService threads = Executors.newCachedThreadPool(r -> Threads.daemon("baton-callbacks", r));
  private final Map<String, EngineBatches> engines = new ConcurrentHashMap<>();
  private final Map<String, Entry> pending = new ConcurrentHashMap<>();
  private final Map<Entry, ScheduledFuture<?>> waiting = new ConcurrentHashMap<>();
  private final Object idle = new Object();
  private volatile boolean stopped;

  CallbackSender(EngineClient client, List<String> engineUrls, long baseMs, long maxMs, int requests, long rerouteAfterMs, ScheduledExecutorService scheduler, CallbackSpool spool, StartsFirst startsFirst) {
    this.client = client;
    this.startsFirst = startsFirst;
    this.spool = spool;
    this.engineUrls = engineUrls;
    this.baseMs = baseMs;
    this.maxMs = maxMs;
    this.rerouteAfterMs = rerouteAfterMs;
    this.scheduler = scheduler;
    this.requests = new Semaphore(requests, true);
  }

  int size() {
    return pending.size();
  }

  boolean has(String key) {
    return pending.containsKey(key);
  }

  /** Spools the entry, then sends it once runs waiting in line to start let it ({@link StartsFirst}). */
  void enqueue(Entry entry) {
    if (stopped || pending.putIfAbsent(entry.key, entry) != null) return;
    spool.add(entry);
    startsFirst.turn(() -> startRound(entry));
  }

  /**
   * One round for an interim callback: no retry. True when an engine took it. The engines are
   * tried as for a final callback, the next one also when one has not answered within
   * rerouteAfterMs: the run's end waits for this send (RunJob.settle).
   */
  boolean sendOnce(List<String> urls, byte[] json) {
    List<String> order = client.order(concat(urls));
    BlockingQueue<EngineClient.Answer> answers = new LinkedBlockingQueue<>();
    int next = 0;
    int outstanding = 0;
    try {
      while (true) {
        if (next < order.size()) {
          String url = order.get(next++);
          outstanding++;
          threads.execute(() -> answers.add(client.post(url, EngineBatches.CALLBACK, json)));
        } else if (outstanding == 0) {
          return false;
        }
        EngineClient.Answer a = next < order.size() ? answers.poll(rerouteAfterMs, TimeUnit.MILLISECONDS) : answers.take();
        if (a == null) {
          client.setAside(order.get(next - 1));
          continue;
        }
        outstanding--;
        if (a.delivered() || a.rejectedForGood()) return a.delivered();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (RejectedExecutionException stopped) {
      return false;
    }
  }

  /** True when nothing is pending any more, false when {@code timeoutMs} passed first. */
  boolean flush(long timeoutMs) throws InterruptedException {
    wakeAll();
    long until = System.currentTimeMillis() + timeoutMs;
    synchronized (idle) {
      while (!pending.isEmpty()) {
        long left = until - System.currentTimeMillis();
        if (left <= 0) return false;
        idle.wait(left);
      }
    }
    return true;
  }

  /** Stops sending (what is pending stays in the spool). */
  void stop() {
    stopped = true;
    threads.shutdownNow();
  }

  private void startRound(Entry e) {
    synchronized (e) {
      e.order = client.order(concat(e.urls));
      e.next = 0;
      e.outstanding = 0;
      e.failures.clear();
      e.holdMs = 0;
      tryNext(e);
    }
  }

  /**
   * Hands the callback to its next engine URL's batches, with a timer that tries the one after
   * if that engine has not answered within rerouteAfterMs; or, once every engine has answered
   * without settling it, ends the round. Under the entry's lock.
   */
  private void tryNext(Entry e) {
    if (stopped || e.settled) return;
    int id = ++e.tryId;
    if (e.next < e.order.size()) {
      String url = e.order.get(e.next++);
      e.outstanding++;
      try {
        scheduler.schedule(() -> slow(e, id, url), rerouteAfterMs, TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException stopping) {
        // the executor is stopping: this engine's answer (or timeout) ends the try
      }
      engines.computeIfAbsent(url, u -> new EngineBatches(u, client, requests, rerouteAfterMs, scheduler, threads, this::answered)).send(e);
    } else if (e.outstanding == 0) {
      retry(e, e.failures.isEmpty() ? "no engine URL" : String.join("; ", e.failures));
    }
  }

  /** The engine tried last has not answered within rerouteAfterMs: it goes last for a while, and the next one is tried too. */
  private void slow(Entry e, int id, String url) {
    synchronized (e) {
      if (e.tryId != id || e.settled) return;
      client.setAside(url);
      tryNext(e);
    }
  }

  private void answered(Entry e, EngineClient.Answer a) {
    synchronized (e) {
      if (e.settled) return; // another engine took it first: this is a second copy's answer
      e.outstanding--;
      if (!a.delivered() && !a.rejectedForGood()) {
        e.holdMs = Math.max(e.holdMs, a.retryAfterMs());
        e.failures.add(a.describe());
        tryNext(e);
        return;
      }
      e.settled = true;
    }
    settle(e, a);
  }

  private void settle(Entry e, EngineClient.Answer a) {
    if (a.delivered()) wakeAll();
    else LOG.log(System.Logger.Level.ERROR, "[baton executor] callback of run " + e.key + " refused for good, dropped: " + a.describe() + e.logFields());
    spool.remove(e.key);
    pending.remove(e.key);
    synchronized (idle) {
      if (pending.isEmpty()) idle.notifyAll();
    }
  }

  private void retry(Entry e, String why) {
    if (stopped) return;
    e.tries++;
    long exp = Math.min(maxMs, baseMs * (1L << Math.min(e.tries - 1, 30)));
    long delay = Math.max(e.holdMs, exp / 2 + ThreadLocalRandom.current().nextLong(exp / 2 + 1));
    e.heldUntil = System.currentTimeMillis() + e.holdMs;
    if (e.tries == 1 || e.tries % 10 == 0) {
      LOG.log(System.Logger.Level.WARNING, "[baton executor] callback of run " + e.key + " not delivered (try " + e.tries + ", next in " + delay + " ms): " + why + e.logFields());
    }
    // The lock makes the timer find the entry it was scheduled for, even if it fires before the
    // put: else the callback would stay pending and never be sent again.
    synchronized (waiting) {
      waiting.put(e, scheduler.schedule(() -> {
        if (takeWaiting(e)) startRound(e);
      }, delay, TimeUnit.MILLISECONDS));
    }
  }

  private boolean takeWaiting(Entry e) {
    synchronized (waiting) {
      return waiting.remove(e) != null;
    }
  }

  private void wakeAll() {
    long now = System.currentTimeMillis();
    for (Map.Entry<Entry, ScheduledFuture<?>> w : waiting.entrySet()) {
      if (w.getKey().heldUntil > now) continue; // an engine said when to come back: its timer does
      if (w.getValue().cancel(false) && waiting.remove(w.getKey()) != null) startRound(w.getKey());
    }
  }

  private List<String> concat(List<String> urls) {
    List<String> all = new ArrayList<>(urls);
    all.addAll(engineUrls);
    return all;
  }
}
