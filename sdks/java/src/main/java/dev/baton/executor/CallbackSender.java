package dev.baton.executor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Delivers final callbacks until an engine takes them (2xx, or 409: it has the outcome already)
 * or refuses them for good (400/413/422): a round tries each engine URL once, in the dispatch's
 * order; after a failed round the callback waits a jittered exponential backoff, and a success
 * wakes every waiting one (the engines are back) — but one refused with 429 (an engine's
 * TENANT_BUSY / TENANT_RATE_LIMITED) waits at least its {@code Retry-After}, success or not: waking
 * it would send the tenant's backlog into its bounds again on every success. Each engine URL's {@link EngineBatches} sends
 * what is ready for it together; at most {@code requests} callback requests are in flight, all
 * engines together. Each callback is in the spool until it is settled.
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
    /** Not sent again before this (epoch ms): an engine's {@code Retry-After}. */
    volatile long heldUntil;

    Entry(String key, List<String> urls, byte[] json) {
      this.key = key;
      this.urls = urls;
      this.json = json;
    }
  }

  private final EngineClient client;
  private final List<String> engineUrls;
  private final long baseMs;
  private final long maxMs;
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

  CallbackSender(EngineClient client, List<String> engineUrls, long baseMs, long maxMs, int requests, ScheduledExecutorService scheduler, CallbackSpool spool, StartsFirst startsFirst) {
    this.client = client;
    this.startsFirst = startsFirst;
    this.spool = spool;
    this.engineUrls = engineUrls;
    this.baseMs = baseMs;
    this.maxMs = maxMs;
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

  /** One round for an interim callback: no retry. True when an engine took it. */
  boolean sendOnce(List<String> urls, byte[] json) {
    for (String url : client.order(concat(urls))) {
      EngineClient.Answer a = client.post(url, EngineBatches.CALLBACK, json);
      if (a.delivered() || a.rejectedForGood()) return a.delivered();
    }
    return false;
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
    e.order = client.order(concat(e.urls));
    e.next = 0;
    e.failures.clear();
    e.holdMs = 0;
    tryNext(e);
  }

  /** Hands the callback to its next engine URL's batches, or ends the round. */
  private void tryNext(Entry e) {
    if (stopped) return;
    if (e.next < e.order.size()) engines.computeIfAbsent(e.order.get(e.next++), url -> new EngineBatches(url, client, requests, threads, this::answered)).send(e);
    else retry(e, e.failures.isEmpty() ? "no engine URL" : String.join("; ", e.failures));
  }

  private void answered(Entry e, EngineClient.Answer a) {
    if (settled(e, a)) return;
    e.holdMs = Math.max(e.holdMs, a.retryAfterMs());
    e.failures.add(a.describe());
    tryNext(e);
  }

  private boolean settled(Entry e, EngineClient.Answer a) {
    if (!a.delivered() && !a.rejectedForGood()) return false;
    if (a.delivered()) wakeAll();
    else LOG.log(System.Logger.Level.ERROR, "[baton executor] callback of run " + e.key + " refused for good, dropped: " + a.describe());
    spool.remove(e.key);
    pending.remove(e.key);
    synchronized (idle) {
      if (pending.isEmpty()) idle.notifyAll();
    }
    return true;
  }

  private void retry(Entry e, String why) {
    if (stopped) return;
    e.tries++;
    long exp = Math.min(maxMs, baseMs * (1L << Math.min(e.tries - 1, 30)));
    long delay = Math.max(e.holdMs, exp / 2 + ThreadLocalRandom.current().nextLong(exp / 2 + 1));
    e.heldUntil = System.currentTimeMillis() + e.holdMs;
    if (e.tries == 1 || e.tries % 10 == 0) {
      LOG.log(System.Logger.Level.WARNING, "[baton executor] callback of run " + e.key + " not delivered (try " + e.tries + ", next in " + delay + " ms): " + why);
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
