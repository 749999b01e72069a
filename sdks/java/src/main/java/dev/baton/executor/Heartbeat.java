package dev.baton.executor;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Sends the ExecutorHeartbeat (which is also the registration) at start and then every
 * interval; a round tries each engine URL once. An ack's {@code intervalMs} becomes the interval,
 * its {@code executorId} goes into the callbacks; each ack goes to {@code onAck} with when its round
 * began ({@link System#nanoTime()}, before any engine was tried): the sent-ahead lease counts from then.
 */
final class Heartbeat {
  static final String PATH = "/baton/executors/heartbeat";
  /**
   * One engine's try of a heartbeat, well under the engines' BATON_EXECUTOR_DEAD_AFTER_MS (10 s,
   * the default request timeout too): an engine that hangs (black-holed, frozen) costs one short
   * try and goes last for 5 s, instead of keeping the executor silent until it is marked DOWN.
   */
  static final Duration TRY = Duration.ofSeconds(2);
  private static final System.Logger LOG = System.getLogger("dev.baton.executor");
  private final EngineClient client;
  private final List<String> engineUrls;
  private final Supplier<Object> payload;
  private final Acks onAck;
  private final Object timer = new Object();
  private final Object sending = new Object();
  private volatile long intervalMs;
  private volatile long executorId = -1;
  private volatile boolean running;
  private boolean down;

  /** What an answered heartbeat tells the executor. */
  interface Acks {
    void heard(long sentAt, long intervalMs, JsonNode ack);
  }

  Heartbeat(EngineClient client, List<String> engineUrls, long intervalMs, Supplier<Object> payload, Acks onAck) {
    this.client = client;
    this.engineUrls = engineUrls;
    this.intervalMs = intervalMs;
    this.payload = payload;
    this.onAck = onAck;
  }

  /** The id the engines gave this executor, or -1 before the first ack. */
  long executorId() {
    return executorId;
  }

  void start() {
    running = true;
    Threads.daemon("baton-heartbeat", () -> {
      while (running) {
        beat();
        synchronized (timer) {
          try {
            if (running) timer.wait(intervalMs);
          } catch (InterruptedException e) {
            return;
          }
        }
      }
    }).start();
  }

  void stop() {
    running = false;
    synchronized (timer) {
      timer.notifyAll();
    }
  }

  /**
   * One heartbeat now (also outside the schedule: to announce draining). True when an engine took it.
   * One at a time ({@code sending}), so the engines get them in the order they were composed: a
   * scheduled beat composed before SIGTERM cannot land after the last word.
   */
  boolean beat() {
    synchronized (sending) {
      return send();
    }
  }

  private boolean send() {
    long sentAt = System.nanoTime();
    byte[] body = Json.bytes(payload.get());
    List<String> failures = new ArrayList<>();
    for (String url : client.order(engineUrls)) {
      EngineClient.Answer a = client.post(url, PATH, body, TRY);
      if (a.status() >= 200 && a.status() < 300) {
        JsonNode ack = a.body();
        if (ack != null && ack.path("intervalMs").isNumber()) intervalMs = Math.min(600_000, Math.max(10, Math.round(ack.get("intervalMs").asDouble())));
        if (ack != null && ack.path("executorId").isNumber()) executorId = ack.get("executorId").asLong();
        onAck.heard(sentAt, intervalMs, ack == null ? Json.object() : ack);
        synchronized (this) {
          if (down) LOG.log(System.Logger.Level.INFO, "[baton executor] heartbeat acknowledged again by " + url);
          down = false;
        }
        return true;
      }
      failures.add(a.describe());
    }
    synchronized (this) {
      if (!down) LOG.log(System.Logger.Level.WARNING, "[baton executor] heartbeat failed on every engine URL (will keep trying): " + String.join("; ", failures));
      down = true;
    }
    return false;
  }
}
