package dev.baton.executor;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;

/**
 * The final callbacks on their way to one engine URL, as the Node SDK's Coalescer per engine: at
 * most two batch requests in flight to it, and what becomes ready meanwhile waits and goes in the
 * next one (up to 100). Sending whatever was ready as soon as any sender thread was free made
 * batches of one or two when runs end one by one, and each request costs the engine an HTTP
 * exchange, a signature check and statements. A lone callback and a large one use the plain route;
 * an engine answering 404 to a batch gets them one by one from then on; a batch refused for its
 * shape or size (400, 413) is sent one by one so each callback is judged on its own; any other
 * answer to the batch is every callback's answer. Each request also holds one of the shared
 * {@code requests} permits: callbackConcurrency bounds the requests to all engines together —
 * until it has gone unanswered for rerouteAfterMs: its callbacks have gone to the next engine
 * meanwhile (CallbackSender), and a hanging engine's requests, which wait out the request
 * timeout, must not hold the permits that callbacks to the other engines need (it keeps at most
 * IN_FLIGHT requests of its own). A callback another engine took while it waited here is left out.
 */
final class EngineBatches {
  static final String CALLBACK = "/baton/callbacks";
  static final String CALLBACK_BATCH = "/baton/callbacks/batch";
  private static final int IN_FLIGHT = 2;
  private static final int MAX_BATCH = 100;
  private static final int MAX_BATCH_BYTES = 1024 * 1024;
  private static final int MAX_BATCHED_CALLBACK_BYTES = 64 * 1024;
  private static final System.Logger LOG = System.getLogger("dev.baton.executor");

  private final String url;
  private final EngineClient client;
  private final Semaphore requests;
  private final long rerouteAfterMs;
  private final ScheduledExecutorService scheduler;
  private final Executor threads;
  private final BiConsumer<CallbackSender.Entry, EngineClient.Answer> answered;
  private final ArrayDeque<CallbackSender.Entry> queue = new ArrayDeque<>();
  private int inFlight;
  private volatile boolean withoutBatchRoute;

  /** {@code answered} gets each callback's answer from this engine, on one of {@code threads}. */
  EngineBatches(String url, EngineClient client, Semaphore requests, long rerouteAfterMs, ScheduledExecutorService scheduler, Executor threads, BiConsumer<CallbackSender.Entry, EngineClient.Answer> answered) {
    this.url = url;
    this.client = client;
    this.requests = requests;
    this.rerouteAfterMs = rerouteAfterMs;
    this.scheduler = scheduler;
    this.threads = threads;
    this.answered = answered;
  }

  synchronized void send(CallbackSender.Entry entry) {
    queue.add(entry);
    kick();
  }

  /** Starts batches while fewer than IN_FLIGHT are out. Under the lock. */
  private void kick() {
    while (inFlight < IN_FLIGHT && !queue.isEmpty()) {
      List<CallbackSender.Entry> batch = new ArrayList<>();
      while (batch.size() < MAX_BATCH && !queue.isEmpty()) {
        CallbackSender.Entry e = queue.poll();
        if (!e.settled) batch.add(e);
      }
      if (batch.isEmpty()) continue;
      inFlight++;
      try {
        threads.execute(() -> flush(batch));
      } catch (RejectedExecutionException stopped) {
        inFlight--; // the sender stopped: these callbacks stay in the spool
        return;
      }
    }
  }

  private void flush(List<CallbackSender.Entry> batch) {
    try {
      List<EngineClient.Answer> answers = sendAll(batch);
      for (int i = 0; i < batch.size(); i++) answered.accept(batch.get(i), answers.get(i));
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.ERROR, "[baton executor] callback sender: " + e, e);
    } finally {
      synchronized (this) {
        inFlight--;
        kick();
      }
    }
  }

  /** Each callback's answer: batched where it pays, one by one where it must. */
  private List<EngineClient.Answer> sendAll(List<CallbackSender.Entry> batch) {
    EngineClient.Answer[] out = new EngineClient.Answer[batch.size()];
    List<Integer> group = new ArrayList<>();
    int bytes = 0;
    for (int i = 0; i < batch.size(); i++) {
      byte[] json = batch.get(i).json;
      if (json.length > MAX_BATCHED_CALLBACK_BYTES || withoutBatchRoute) {
        out[i] = post(CALLBACK, json);
        continue;
      }
      if (!group.isEmpty() && bytes + json.length > MAX_BATCH_BYTES) {
        sendGroup(batch, group, out);
        group.clear();
        bytes = 0;
      }
      group.add(i);
      bytes += json.length + 1;
    }
    if (!group.isEmpty()) sendGroup(batch, group, out);
    return List.of(out);
  }

  private void sendGroup(List<CallbackSender.Entry> batch, List<Integer> indexes, EngineClient.Answer[] out) {
    if (indexes.size() == 1 || withoutBatchRoute) {
      for (int i : indexes) out[i] = post(CALLBACK, batch.get(i).json);
      return;
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.writeBytes("{\"callbacks\":[".getBytes());
    for (int k = 0; k < indexes.size(); k++) {
      if (k > 0) body.write(',');
      body.writeBytes(batch.get(indexes.get(k)).json);
    }
    body.writeBytes("]}".getBytes());
    EngineClient.Answer answer = post(CALLBACK_BATCH, body.toByteArray());
    if (answer.status() == 404) withoutBatchRoute = true;
    if (answer.status() == 404 || answer.status() == 400 || answer.status() == 413) {
      for (int i : indexes) out[i] = post(CALLBACK, batch.get(i).json);
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

  /** One request once a permit is free (first come, first served); the permit goes back on the answer, or after rerouteAfterMs without one. */
  private EngineClient.Answer post(String path, byte[] body) {
    try {
      requests.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new EngineClient.Answer(url, 0, null, "interrupted");
    }
    AtomicBoolean held = new AtomicBoolean(true);
    Runnable release = () -> {
      if (held.getAndSet(false)) requests.release();
    };
    ScheduledFuture<?> slow = null;
    try {
      slow = scheduler.schedule(release, rerouteAfterMs, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException stopping) {
      // the executor is stopping: the permit goes back with the answer
    }
    try {
      return client.post(url, path, body);
    } finally {
      if (slow != null) slow.cancel(false);
      release.run();
    }
  }
}
