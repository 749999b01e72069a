package dev.baton.executor;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Delivers final callbacks until an engine takes them (2xx, or 409: it has the outcome already)
 * or refuses them for good (400/413/422): a round tries each engine URL once, in the dispatch's
 * order; after a failed round the callback waits a jittered exponential backoff, and a success
 * wakes every waiting one (the engines are back). Callbacks ready at the same moment for the same
 * engine share one POST /baton/callbacks/batch (an engine answering 404 to it gets them one by
 * one from then on), as the Node SDK's CallbackBatches. Each is in the spool until it is settled.
 */
final class CallbackSender {
  static final String CALLBACK = "/baton/callbacks";
  static final String CALLBACK_BATCH = "/baton/callbacks/batch";
  private static final int MAX_BATCH = 100;
  private static final int MAX_BATCH_BYTES = 1024 * 1024;
  private static final int MAX_BATCHED_CALLBACK_BYTES = 64 * 1024;
  private static final System.Logger LOG = System.getLogger("dev.baton.executor");

  /** One final callback on its way. */
  static final class Entry {
    final String key;
    final List<String> urls;
    final byte[] json;
    int tries;

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
  private final Map<String, Entry> pending = new ConcurrentHashMap<>();
  private final LinkedBlockingQueue<Entry> ready = new LinkedBlockingQueue<>();
  private final Map<Entry, ScheduledFuture<?>> waiting = new ConcurrentHashMap<>();
  private final Set<String> withoutBatchRoute = ConcurrentHashMap.newKeySet();
  private final Object idle = new Object();
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean stopped;

  CallbackSender(EngineClient client, List<String> engineUrls, long baseMs, long maxMs, int threads, ScheduledExecutorService scheduler, CallbackSpool spool) {
    this.client = client;
    this.spool = spool;
    this.engineUrls = engineUrls;
    this.baseMs = baseMs;
    this.maxMs = maxMs;
    this.scheduler = scheduler;
    for (int i = 0; i < threads; i++) this.threads.add(Threads.daemon("baton-callbacks-" + i, this::loop));
    this.threads.forEach(Thread::start);
  }

  int size() {
    return pending.size();
  }

  boolean has(String key) {
    return pending.containsKey(key);
  }

  /** Spools the entry, then sends it. */
  void enqueue(Entry entry) {
    if (stopped || pending.putIfAbsent(entry.key, entry) != null) return;
    spool.add(entry);
    ready.add(entry);
  }

  /** One round for an interim callback: no retry. True when an engine took it. */
  boolean sendOnce(List<String> urls, byte[] json) {
    for (String url : client.order(concat(urls))) {
      EngineClient.Answer a = client.post(url, CALLBACK, json);
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
    threads.forEach(Thread::interrupt);
  }

  private void loop() {
    while (!stopped) {
      try {
        Entry first = ready.take();
        List<Entry> taken = new ArrayList<>();
        taken.add(first);
        ready.drainTo(taken, MAX_BATCH - 1);
        deliver(taken);
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.ERROR, "[baton executor] callback sender: " + e, e);
      }
    }
  }

  /** First try: grouped by the first engine to try; then each callback goes on alone through the other URLs. */
  private void deliver(List<Entry> entries) {
    Map<String, List<Entry>> byEngine = new LinkedHashMap<>();
    Map<Entry, List<String>> orders = new ConcurrentHashMap<>();
    for (Entry e : entries) {
      List<String> order = client.order(concat(e.urls));
      orders.put(e, order);
      if (order.isEmpty()) retry(e, "no engine URL");
      else byEngine.computeIfAbsent(order.get(0), k -> new ArrayList<>()).add(e);
    }
    byEngine.forEach((url, group) -> {
      List<EngineClient.Answer> answers = sendTo(url, group);
      for (int i = 0; i < group.size(); i++) {
        Entry e = group.get(i);
        EngineClient.Answer first = answers.get(i);
        if (settled(e, first)) continue;
        List<String> failures = new ArrayList<>(List.of(first.describe()));
        List<String> order = orders.get(e);
        boolean done = false;
        for (String next : order.subList(1, order.size())) {
          if (stopped) return;
          EngineClient.Answer a = client.post(next, CALLBACK, e.json);
          if (settled(e, a)) {
            done = true;
            break;
          }
          failures.add(a.describe());
        }
        if (!done) retry(e, String.join("; ", failures));
      }
    });
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
    long delay = exp / 2 + ThreadLocalRandom.current().nextLong(exp / 2 + 1);
    if (e.tries == 1 || e.tries % 10 == 0) {
      LOG.log(System.Logger.Level.WARNING, "[baton executor] callback of run " + e.key + " not delivered (try " + e.tries + ", next in " + delay + " ms): " + why);
    }
    waiting.put(e, scheduler.schedule(() -> {
      if (waiting.remove(e) != null) ready.add(e);
    }, delay, TimeUnit.MILLISECONDS));
  }

  private void wakeAll() {
    for (Map.Entry<Entry, ScheduledFuture<?>> w : waiting.entrySet()) {
      if (w.getValue().cancel(false) && waiting.remove(w.getKey()) != null) ready.add(w.getKey());
    }
  }

  /** Each entry's answer from {@code url}: batched where it pays, one by one where it must. */
  private List<EngineClient.Answer> sendTo(String url, List<Entry> group) {
    EngineClient.Answer[] out = new EngineClient.Answer[group.size()];
    List<Integer> batch = new ArrayList<>();
    int bytes = 0;
    for (int i = 0; i < group.size(); i++) {
      byte[] json = group.get(i).json;
      if (json.length > MAX_BATCHED_CALLBACK_BYTES || withoutBatchRoute.contains(url)) {
        out[i] = client.post(url, CALLBACK, json);
        continue;
      }
      if (!batch.isEmpty() && bytes + json.length > MAX_BATCH_BYTES) {
        sendBatch(url, group, batch, out);
        batch.clear();
        bytes = 0;
      }
      batch.add(i);
      bytes += json.length + 1;
    }
    if (!batch.isEmpty()) sendBatch(url, group, batch, out);
    return List.of(out);
  }

  private void sendBatch(String url, List<Entry> group, List<Integer> indexes, EngineClient.Answer[] out) {
    if (indexes.size() == 1 || withoutBatchRoute.contains(url)) {
      for (int i : indexes) out[i] = client.post(url, CALLBACK, group.get(i).json);
      return;
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.writeBytes("{\"callbacks\":[".getBytes());
    for (int k = 0; k < indexes.size(); k++) {
      if (k > 0) body.write(',');
      body.writeBytes(group.get(indexes.get(k)).json);
    }
    body.writeBytes("]}".getBytes());
    EngineClient.Answer answer = client.post(url, CALLBACK_BATCH, body.toByteArray());
    if (answer.status() == 404) withoutBatchRoute.add(url);
    if (answer.status() == 404 || answer.status() == 400 || answer.status() == 413) {
      for (int i : indexes) out[i] = client.post(url, CALLBACK, group.get(i).json);
      return;
    }
    JsonNode results = answer.status() == 200 && answer.body() != null ? answer.body().get("results") : null;
    for (int k = 0; k < indexes.size(); k++) {
      if (results != null && results.isArray() && results.size() == indexes.size()) {
        JsonNode r = results.get(k);
        out[indexes.get(k)] = new EngineClient.Answer(url, r.path("status").asInt(0), r.get("body"), "malformed batch reply");
      } else {
        out[indexes.get(k)] = answer.status() == 200 ? new EngineClient.Answer(url, 0, null, "malformed batch reply") : answer;
      }
    }
  }

  private List<String> concat(List<String> urls) {
    List<String> all = new ArrayList<>(urls);
    all.addAll(engineUrls);
    return all;
  }
}
