package dev.baton.executor;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * One accepted attempt: its request and handler, its abort (which interrupts the handler's
 * thread), its deadline timer, log tail, progress and alarms, and the throttle of its interim
 * callbacks. The executor moves it QUEUED → RUNNING → done.
 */
final class RunJob {
  private static final List<String> SEVERITIES = List.of("INFO", "WARNING", "CRITICAL");

  final DispatchRequest request;
  /** When the handler must be done, on this executor's clock (DispatchRequest.localDeadline). */
  final long deadline;
  final TaskHandler handler;
  final String key;
  private final ExecutorOptions options;
  private final ScheduledExecutorService scheduler;
  private final ExecutorService io;
  /** Sends one interim callback (no retry); true when an engine took it. */
  private final Predicate<byte[]> sendInterim;
  private final LongSupplier executorId;
  /** Told of each successful abort (the executor's abort grace). */
  private final Consumer<RunJob> onAbort;
  final LogTail logs;

  private volatile String state = "QUEUED";
  private volatile AbortReason abortReason;
  private volatile Long startedAt;
  private Thread thread;
  private Double progress;
  private final List<ObjectNode> alarms = new ArrayList<>();
  private int alarmsDropped;
  private ScheduledFuture<?> deadlineTimer;

  private final Object interim = new Object();
  private boolean done;
  private boolean interimInFlight;
  private boolean interimDirty;
  private ScheduledFuture<?> interimTimer;
  private long lastInterimAt;
  private CompletableFuture<Void> interimSend = CompletableFuture.completedFuture(null);

  RunJob(DispatchRequest request, long deadline, TaskHandler handler, ExecutorOptions options, ScheduledExecutorService scheduler, ExecutorService io, Predicate<byte[]> sendInterim, LongSupplier executorId, Consumer<RunJob> onAbort) {
    this.request = request;
    this.deadline = deadline;
    this.handler = handler;
    this.key = request.key();
    this.options = options;
    this.scheduler = scheduler;
    this.io = io;
    this.sendInterim = sendInterim;
    this.executorId = executorId;
    this.onAbort = onAbort;
    this.logs = new LogTail(options.logTailMaxLines, options.logTailMaxBytes, options.logTailMaxLineBytes);
  }

  String state() {
    return state;
  }

  Long startedAt() {
    return startedAt;
  }

  AbortReason abortReason() {
    return abortReason;
  }

  boolean isDone() {
    synchronized (interim) {
      return done;
    }
  }

  /** Aborts the run (first reason wins) and interrupts its handler. False when it was aborted already. */
  boolean abort(AbortReason reason) {
    synchronized (this) {
      if (abortReason != null) return false;
      abortReason = reason;
      if (thread != null) thread.interrupt();
      notifyAll(); // ends a ctx.sleep at once
    }
    onAbort.accept(this);
    return true;
  }

  /** The handler starts on the calling thread: RUNNING, and the deadline is watched. */
  void start() {
    synchronized (this) {
      thread = Thread.currentThread();
      startedAt = System.currentTimeMillis();
      state = "RUNNING";
      if (abortReason != null) thread.interrupt();
    }
    armDeadline();
  }

  /** The handler returned: its thread is no longer this run's (a late abort must not interrupt the next run). */
  synchronized void detach() {
    thread = null;
    Thread.interrupted();
  }

  private void armDeadline() {
    long ms = deadline - System.currentTimeMillis();
    if (ms <= 0) {
      abort(AbortReason.DEADLINE);
      return;
    }
    // The scheduler's clock is monotonic; re-arming until the wall clock is there keeps the abort from coming early.
    synchronized (interim) {
      if (!done) deadlineTimer = scheduler.schedule(this::armDeadline, ms, TimeUnit.MILLISECONDS);
    }
  }

  void sleep(long ms) {
    long until = System.currentTimeMillis() + Math.max(0, ms);
    synchronized (this) {
      while (abortReason == null) {
        long left = until - System.currentTimeMillis();
        if (left <= 0) return;
        try {
          wait(left);
        } catch (InterruptedException e) {
          if (abortReason != null) break;
          Thread.currentThread().interrupt(); // not ours: keep the flag for the caller
          return;
        }
      }
      throw new RunAbortedException(abortReason);
    }
  }

  void log(String level, String format, Object... args) {
    if (isDone()) return;
    String message = args == null || args.length == 0 ? String.valueOf(format) : String.format(format, args);
    logs.write(level, message, System.currentTimeMillis());
    requestInterim(true);
  }

  void progress(double percent) {
    if (isDone() || Double.isNaN(percent)) return;
    synchronized (this) {
      progress = Math.min(100, Math.max(0, percent));
    }
    requestInterim(false);
  }

  void alarm(String severity, String message, Object data) {
    if (!SEVERITIES.contains(severity)) throw new IllegalArgumentException("ctx.alarm: severity must be one of INFO, WARNING, CRITICAL");
    if (isDone()) return;
    synchronized (this) {
      if (alarms.size() >= options.maxAlarmsPerRun) {
        if (alarmsDropped++ == 0) logs.write("warn", "[baton] more than " + options.maxAlarmsPerRun + " alarms in this run: further alarms are dropped", System.currentTimeMillis());
        return;
      }
      // A stable id: the engine records the alarm once however often a callback carries it.
      ObjectNode alarm = Json.object();
      alarm.put("id", UUID.randomUUID().toString());
      alarm.put("severity", severity);
      alarm.put("message", Json.truncateUtf8(String.valueOf(message), 2048));
      alarm.put("at", System.currentTimeMillis());
      if (data != null) {
        try {
          alarm.set("data", Json.MAPPER.valueToTree(data));
        } catch (IllegalArgumentException notJson) {
          alarm.putNull("data");
        }
      }
      alarms.add(alarm);
    }
    requestInterim(false);
  }

  /**
   * Sends an interim callback now, or once a progress period has passed since the last one. For
   * a log line, not before a period into the run either: a short run's lines ride its final
   * callback instead of costing an interim callback each.
   */
  private void requestInterim(boolean forLog) {
    synchronized (interim) {
      if (done || !"RUNNING".equals(state)) return;
      if (interimInFlight) {
        interimDirty = true;
        return;
      }
      if (interimTimer != null) return;
      long since = forLog ? Math.max(lastInterimAt, startedAt == null ? 0 : startedAt) : lastInterimAt;
      long wait = since + options.progressIntervalMs - System.currentTimeMillis();
      if (wait <= 0) sendInterimNow();
      else interimTimer = scheduler.schedule(() -> {
        synchronized (interim) {
          interimTimer = null;
          sendInterimNow();
        }
      }, wait, TimeUnit.MILLISECONDS);
    }
  }

  /** Under the interim lock. */
  private void sendInterimNow() {
    if (done) return;
    long logsUpTo = logs.mark();
    List<ObjectNode> carried;
    ObjectNode cb = base();
    cb.put("startedAt", startedAt);
    synchronized (this) {
      if (progress != null) cb.put("progress", progress);
      carried = new ArrayList<>(alarms);
    }
    if (!carried.isEmpty()) cb.set("alarms", Json.MAPPER.createArrayNode().addAll(carried));
    ArrayNode lines = logs.json();
    if (!lines.isEmpty()) cb.set("logs", lines);
    byte[] json = Json.bytes(cb);
    lastInterimAt = System.currentTimeMillis();
    interimInFlight = true;
    interimSend = CompletableFuture.runAsync(() -> {
      if (!sendInterim.test(json)) return;
      synchronized (this) {
        alarms.removeAll(carried);
      }
      logs.delivered(logsUpTo);
    }, io).whenComplete((ok, err) -> {
      synchronized (interim) {
        interimInFlight = false;
        if (interimDirty) {
          interimDirty = false;
          requestInterim(false);
        }
      }
    });
  }

  /**
   * No more reports: stops the timers and waits for an interim callback in flight (so its lines
   * and alarms do not go twice). False when it was settled already (the final callback is built once).
   */
  boolean settle() {
    CompletableFuture<Void> inFlight;
    synchronized (interim) {
      if (done) return false;
      done = true;
      if (deadlineTimer != null) deadlineTimer.cancel(false);
      if (interimTimer != null) interimTimer.cancel(false);
      inFlight = interimSend;
    }
    try {
      inFlight.get(options.requestTimeoutMs + 1000, TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      // sent or not, its lines are still pending: they ride the final callback
    }
    return true;
  }

  /** The final callback (after settle()). */
  ObjectNode finalCallback(Outcome o, long finishedAt) {
    ObjectNode cb = base();
    cb.put("outcome", o.outcome());
    if (o.result() != null) cb.set("result", o.result());
    if (o.error() != null) cb.put("error", o.error());
    if ("FAILED".equals(o.outcome()) && !o.retryable()) cb.put("retryable", false);
    if (startedAt != null) cb.put("startedAt", startedAt);
    cb.put("finishedAt", finishedAt);
    synchronized (this) {
      if (progress != null) cb.put("progress", progress);
      if (!alarms.isEmpty()) cb.set("alarms", Json.MAPPER.createArrayNode().addAll(alarms));
    }
    ArrayNode lines = logs.json();
    if (!lines.isEmpty()) cb.set("logs", lines);
    if (request.traceparent() != null) cb.put("traceparent", request.traceparent());
    if ("ABORTED".equals(o.outcome())) cb.put("abortReason", (abortReason == null ? AbortReason.CANCELLED : abortReason).name());
    return cb;
  }

  private ObjectNode base() {
    ObjectNode cb = Json.object();
    cb.put("runId", request.runId());
    cb.put("attempt", request.attempt());
    cb.put("tenantId", request.tenantId());
    long id = executorId.getAsLong();
    if (id >= 0) cb.put("executorId", id);
    return cb;
  }
}
