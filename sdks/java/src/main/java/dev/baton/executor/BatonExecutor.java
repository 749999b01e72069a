package dev.baton.executor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Baton executor: answers the engines' signed requests on the JDK's HTTP server (dispatch —
 * single and batched —, abort, status, health), runs handlers on a bounded pool of worker
 * threads (a run sent ahead of its instant waits for it), delivers signed callbacks with retries,
 * heartbeats, and stops gracefully.
 *
 * <pre>{@code
 * BatonExecutor.fromEnv()
 *     .handler("hello", ctx -> Map.of("greeting", "hello " + ctx.params().path("name").asText("world")))
 *     .run();
 * }</pre>
 */
public final class BatonExecutor {
  /**
   * The executor protocol this SDK speaks: 2 holds a run sent ahead of its instant ({@code startInMs}),
   * so engines may send it early; 3 starts such a run only within the sent-ahead lease and honours the
   * acks' {@code handBacks} ({@link ContactLease}), so engines hand back what it never started when it goes silent.
   */
  public static final int PROTOCOL_VERSION = 3;
  static final int MAX_RUNS_PER_DISPATCH_BATCH = 100;
  static final int MAX_HEARTBEAT_ACTIVE = 1000;
  private static final Pattern ROUTE_RUN = Pattern.compile("^/baton/runs/(\\d{1,15})$");
  private static final Pattern ROUTE_ABORT = Pattern.compile("^/baton/runs/(\\d{1,15})/abort$");
  private static final System.Logger LOG = System.getLogger("dev.baton.executor");

  private enum Phase { NEW, RUNNING, DRAINING, STOPPED }

  private record Finished(String outcome, Long startedAt, long finishedAt) {}

  record Response(int status, JsonNode body) {}

  private final ExecutorOptions options;
  private final Map<String, TaskHandler> handlers = new LinkedHashMap<>();
  private final long startedAt = System.currentTimeMillis();
  private final Object lock = new Object();
  private final Map<String, RunJob> jobs = new LinkedHashMap<>();
  /** Runs whose time has come, waiting for a worker: a line per task, in turn. */
  private final TaskLines queue = new TaskLines();
  /**
   * Runs sent ahead (protocol 2), by the instant they start at (epoch ms): queued, though not in
   * line for a worker until then. The runs of one instant share one timer, so a burst sent ahead
   * costs one timer, not one a run.
   */
  private final TreeMap<Long, List<RunJob>> ahead = new TreeMap<>();
  private final Map<RunJob, Long> instantOf = new HashMap<>();
  /** Whether runs sent ahead may start (protocol 3). */
  private final ContactLease contact = new ContactLease();
  private final LinkedHashMap<String, Finished> finished;
  private int running;
  private long creditSeq;
  private Phase phase = Phase.NEW;
  private ObjectNode schemas;
  private String url;
  private ExecutorHttpServer server;
  private EngineClient client;
  private CallbackSender sender;
  private StartsFirst startsFirst;
  private CallbackSpool spool;
  private Heartbeat heartbeat;
  private ScheduledThreadPoolExecutor scheduler;
  private ExecutorService io;
  private final AtomicBoolean stopCalled = new AtomicBoolean();
  private final CompletableFuture<Void> stopped = new CompletableFuture<>();

  public BatonExecutor(ExecutorOptions options) {
    this.options = options;
    int limit = options.recentlyFinishedLimit;
    this.finished = new LinkedHashMap<>() {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, Finished> eldest) {
        return size() > limit;
      }
    };
  }

  /** An executor configured by the BATON_* environment variables (see {@link ExecutorOptions#fromEnv()}). */
  public static BatonExecutor fromEnv() {
    return new BatonExecutor(ExecutorOptions.fromEnv());
  }

  public BatonExecutor handler(String name, Handler handler) {
    return handler(new TaskHandler(name, handler, null));
  }

  /** With a JSON schema of the params (JSON text of an object; at most 16 KB, 60 KB for all handlers together, or it is not sent). */
  public BatonExecutor handler(String name, String paramsSchema, Handler handler) {
    return handler(TaskHandler.of(name, paramsSchema, handler));
  }

  public synchronized BatonExecutor handler(TaskHandler handler) {
    if (phase != Phase.NEW) throw new IllegalStateException("handlers can only be added before start");
    if (handlers.containsKey(handler.name())) throw new IllegalArgumentException("two handlers are named \"" + handler.name() + "\"");
    handlers.put(handler.name(), handler);
    return this;
  }

  /** Every public {@link BatonHandler} method of {@code bean}, called on it. */
  public BatonExecutor handlers(Object bean) {
    AnnotatedHandlers.of(bean).forEach(this::handler);
    return this;
  }

  /** The URL engines call, once started. */
  public String url() {
    return url;
  }

  /**
   * Listens, starts the workers and the heartbeats (which register the executor with the
   * engines); returns the URL engines call. Throws when the options are bad or the port is taken.
   */
  public synchronized String start() throws IOException {
    if (phase != Phase.NEW) throw new IllegalStateException("the executor was started already");
    options.check();
    HandlerSchemas sendable = HandlerSchemas.of(handlers.values());
    schemas = sendable.schemas();
    if (!sendable.leftOut().isEmpty()) {
      LOG.log(System.Logger.Level.WARNING, "[baton executor] params schemas not sent (over 16 KB each, or past 60 KB for all of them; their tasks are saved unchecked): " + String.join(", ", sendable.leftOut()));
    }
    scheduler = Threads.scheduler("baton-timers", 2);
    io = Executors.newCachedThreadPool(r -> Threads.daemon("baton-io", r));
    client = new EngineClient(options.tenantId, options.secret, options.requestTimeoutMs);
    spool = !options.spool ? CallbackSpool.memory()
        : CallbackSpool.open(options.spoolFile != null ? options.spoolFile : Path.of(".baton", "spool-" + options.app + ".jsonl"), options.spoolFile == null);
    startsFirst = new StartsFirst(() -> {
      synchronized (lock) {
        return phase == Phase.RUNNING && !queue.isEmpty();
      }
    }, scheduler);
    sender = new CallbackSender(client, options.engineUrls, options.retryBaseMs, options.retryMaxMs, options.callbackConcurrency, options.rerouteAfterMs, scheduler, spool, startsFirst);
    List<CallbackSender.Entry> replayed = spool.pending();
    if (!replayed.isEmpty()) LOG.log(System.Logger.Level.INFO, "[baton executor] replaying " + replayed.size() + " undelivered callback(s) from " + spool.file());
    replayed.forEach(sender::enqueue);
    server = new ExecutorHttpServer(options.host, options.port, Math.max(4, Math.min(16, options.concurrency)), options.maxBodyBytes, this::handle);
    for (int i = 0; i < options.concurrency; i++) Threads.daemon("baton-worker-" + i, this::work).start();
    url = options.publicUrl != null ? options.publicUrl : server.url();
    synchronized (lock) {
      phase = Phase.RUNNING;
    }
    heartbeat = new Heartbeat(client, options.engineUrls, options.heartbeatIntervalMs, this::heartbeatPayload, this::heard);
    heartbeat.start();
    return url;
  }

  /**
   * Starts, logs where it listens, and stops gracefully on SIGTERM or SIGINT (running handlers
   * get the shutdown grace, callbacks are flushed) then exits 0; a second signal ends it at once.
   * A failed start logs why and exits 1. For an application that owns its lifecycle (Spring),
   * call {@link #start()} and {@link #stop()} instead.
   */
  public BatonExecutor run() {
    try {
      start();
    } catch (Exception e) {
      System.err.println("[baton executor] could not start: " + e.getMessage());
      System.exit(1);
    }
    LOG.log(System.Logger.Level.INFO, "[baton executor] executor " + options.app + " of tenant " + options.tenantId + " listening on " + url + ", engines " + String.join(", ", options.engineUrls));
    StopSignals.install(this::stop);
    return this;
  }

  /**
   * Graceful stop: dispatches get 503 SHUTTING_DOWN and a draining heartbeat goes out; queued
   * runs end ABORTED (SHUTDOWN) without running, but for runs sent ahead whose instant comes within
   * {@code shutdownGraceMs}, which start then; running ones get {@code shutdownGraceMs}, then are
   * aborted; pending callbacks get {@code shutdownFlushMs}. Blocks until done; idempotent.
   */
  public void stop() {
    if (!stopCalled.compareAndSet(false, true)) {
      stopped.join();
      return;
    }
    try {
      drain();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      stopped.complete(null);
    }
  }

  // ---- requests ------------------------------------------------------------------------------

  /**
   * Answers one request (transport-neutral); {@code body} null: it was larger than maxBodyBytes;
   * {@code arrivedAt}: when the request began to be served (epoch ms), what a run sent ahead
   * counts its wait from. Never throws for a bad request.
   */
  Response handle(String method, String path, Function<String, String> header, byte[] body, long arrivedAt) {
    if (body == null) return refuse(413, "BAD_REQUEST", "body: larger than " + options.maxBodyBytes + " bytes", "body");
    if (path.equals("/baton/health")) {
      if (!method.equals("GET")) return refuse(405, "BAD_REQUEST", "use GET", null);
      return new Response(200, health());
    }
    Matcher abort = ROUTE_ABORT.matcher(path);
    Matcher run = ROUTE_RUN.matcher(path);
    String route = path.equals("/baton/runs") ? "dispatch" : path.equals("/baton/runs/batch") ? "batch" : abort.matches() ? "abort" : run.matches() ? "status" : null;
    if (route == null) return refuse(404, "BAD_REQUEST", "no executor route " + path, null);
    String wanted = route.equals("status") ? "GET" : "POST";
    if (!method.equals(wanted)) return refuse(405, "BAD_REQUEST", "use " + wanted + " " + path, null);
    // Another tenant's request is refused as that, before its signature: it is signed with that
    // tenant's secret, which this executor has not (docs/EXECUTOR-PROTOCOL.md, "The signature").
    String tenant = header.apply(Signing.TENANT);
    if (tenant == null) return refuse(401, "UNAUTHORIZED", "signature: missing " + Signing.TENANT + " header", null);
    if (!options.tenantId.equals(tenant)) return refuse(401, "UNAUTHORIZED", Signing.TENANT + ": this executor serves another tenant", Signing.TENANT);
    String problem = Signing.verify(options.secret, header, method, path, body, System.currentTimeMillis(), options.maxSkewMs);
    if (problem != null) return refuse(401, "UNAUTHORIZED", "signature: " + problem, null);
    if (route.equals("status")) return new Response(200, runStatus(Long.parseLong(run.group(1))));
    JsonNode parsed;
    try {
      parsed = body.length == 0 ? null : Json.parse(body);
    } catch (IOException e) {
      return refuse(400, "BAD_REQUEST", "body: malformed JSON (" + e.getMessage().split("\n")[0] + ")", "body");
    }
    return switch (route) {
      case "abort" -> abort(parsed, Long.parseLong(abort.group(1)));
      case "batch" -> dispatchBatch(parsed, arrivedAt);
      default -> dispatch(parsed, arrivedAt);
    };
  }

  private Response dispatch(JsonNode body, long arrivedAt) {
    DispatchChecks.Problem problem = DispatchChecks.checkDispatch(body);
    if (problem != null) return refuse(400, "BAD_REQUEST", problem.message(), problem.field());
    DispatchRequest request = DispatchRequest.of(body);
    if (!request.tenantId().equals(options.tenantId)) return refuse(400, "BAD_REQUEST", "tenantId: not the tenant of this executor", "tenantId");
    String key = request.key();
    synchronized (lock) {
      if (jobs.containsKey(key) || finished.containsKey(key)) return new Response(202, ack(request)); // this attempt is known: not run twice
      if (phase != Phase.RUNNING) return refuse(503, "SHUTTING_DOWN", phase == Phase.NEW ? "the executor is not started yet" : "the executor is shutting down", null);
      TaskHandler handler = handlers.get(request.handler());
      if (handler == null) {
        return refuse(404, "UNKNOWN_HANDLER", "handler: no handler \"" + request.handler() + "\" here (this executor has: " + String.join(", ", handlers.keySet()) + ")", "handler");
      }
      // A run sent ahead waits for its instant on this machine's clock, counted from its request's
      // arrival: the engine's clock need not agree with it.
      long startAt = request.startInMs() > 0 ? arrivedAt + request.startInMs() : 0;
      int idle = Math.max(0, options.concurrency - running);
      // It takes a place of the credit until then. A run due now still takes a free worker: the runs
      // sent ahead may then find the workers busy at their instant and wait in line, as they would
      // have had they been sent then.
      boolean room = startAt > 0 ? running + queued() < options.concurrency + options.queueLimit
          : queue.size() < idle || queued() < idle + options.queueLimit;
      if (!room) {
        return refuse(429, "BUSY", "all " + options.concurrency + " workers are busy and " + queued() + " runs are queued (queueLimit " + options.queueLimit + ")", null);
      }
      RunJob job = new RunJob(request, request.localDeadline(arrivedAt), handler, options, scheduler, io, json -> sender.sendOnce(request.callbackUrls(), json), heartbeat::executorId, this::graceAfterAbort);
      jobs.put(key, job);
      if (startAt > 0) {
        holdUntil(job, startAt);
      } else {
        queue.add(job);
        lock.notifyAll();
      }
      return new Response(202, ack(request));
    }
  }

  /**
   * Each run judged as POST /baton/runs would judge it, in order; a wrong field is named with its
   * index. Every run counts from the request's arrival, not from its turn in the batch.
   */
  private Response dispatchBatch(JsonNode body, long arrivedAt) {
    JsonNode runs = body != null && body.isObject() ? body.get("runs") : null;
    if (runs == null || !runs.isArray()) return refuse(400, "BAD_REQUEST", "runs: must be an array of runs", "runs");
    if (runs.isEmpty() || runs.size() > MAX_RUNS_PER_DISPATCH_BATCH) {
      return refuse(400, "BAD_REQUEST", "runs: must hold 1 to " + MAX_RUNS_PER_DISPATCH_BATCH + " runs (got " + runs.size() + ")", "runs");
    }
    ArrayNode results = Json.MAPPER.createArrayNode();
    for (int i = 0; i < runs.size(); i++) {
      JsonNode run = runs.get(i);
      Response answer = dispatch(run, arrivedAt);
      if (answer.body().has("field")) ((ObjectNode) answer.body()).put("field", "runs[" + i + "]." + answer.body().get("field").asText());
      ObjectNode result = results.addObject();
      result.put("runId", DispatchChecks.isSafeInteger(run.get("runId")) ? run.get("runId").asLong() : 0);
      result.put("attempt", DispatchChecks.isSafeInteger(run.get("attempt")) ? run.get("attempt").asLong() : 0);
      result.put("status", answer.status());
      result.set("body", answer.body());
    }
    ObjectNode reply = Json.object();
    reply.set("results", results);
    return new Response(200, reply);
  }

  /** Under the lock: a 202's body, with the room left. */
  private ObjectNode ack(DispatchRequest r) {
    ObjectNode body = Json.object();
    body.put("accepted", true);
    body.put("runId", r.runId());
    body.put("attempt", r.attempt());
    credit(body, 0);
    return body;
  }

  /**
   * Under the lock: {@code credit} — free workers plus free queue places, {@code freeing} more
   * about to be free — and its {@code creditSeq}, microseconds of the clock and at least one
   * more than the last, so engines keep the newest figure, across a restart too.
   */
  private void credit(ObjectNode body, int freeing) {
    creditSeq = Math.max(creditSeq + 1, System.currentTimeMillis() * 1000);
    body.put("credit", Math.max(0, options.concurrency + options.queueLimit - running - queued() + freeing));
    body.put("creditSeq", creditSeq);
  }

  private Response abort(JsonNode body, long pathRunId) {
    DispatchChecks.Problem problem = DispatchChecks.checkAbort(body, pathRunId);
    if (problem != null) return refuse(400, "BAD_REQUEST", problem.message(), problem.field());
    long runId = body.get("runId").asLong();
    int attempt = body.get("attempt").asInt();
    String key = DispatchRequest.runKey(runId, attempt);
    ObjectNode answer = Json.object();
    answer.put("runId", runId);
    answer.put("attempt", attempt);
    RunJob job;
    boolean dropped;
    boolean lineEmpty;
    synchronized (lock) {
      job = jobs.get(key);
      if (job == null || job.isDone()) {
        answer.put("aborted", false);
        answer.put("state", finished.containsKey(key) ? "FINISHED" : "UNKNOWN");
        return new Response(404, answer);
      }
      answer.put("aborted", true);
      answer.put("state", job.state());
      dropped = "QUEUED".equals(job.state()) && (queue.remove(job) || unhold(job));
      lineEmpty = queue.isEmpty();
    }
    if (lineEmpty) startsFirst.lineEmptied();
    job.abort(AbortReason.valueOf(body.get("reason").asText()));
    if (dropped) finish(job, Outcome.aborted(job.abortReason().message + " (before it started)"), 0);
    return new Response(202, answer);
  }

  private ObjectNode runStatus(long runId) {
    List<ObjectNode> attempts = new ArrayList<>();
    synchronized (lock) {
      for (RunJob job : jobs.values()) {
        if (job.request.runId() != runId) continue;
        ObjectNode a = Json.object();
        a.put("attempt", job.request.attempt());
        a.put("state", job.state());
        if (job.startedAt() != null) a.put("startedAt", job.startedAt());
        attempts.add(a);
      }
      String prefix = runId + ":";
      finished.forEach((key, f) -> {
        if (!key.startsWith(prefix) || jobs.containsKey(key)) return;
        ObjectNode a = Json.object();
        a.put("attempt", Integer.parseInt(key.substring(prefix.length())));
        a.put("state", "FINISHED");
        a.put("outcome", f.outcome());
        if (f.startedAt() != null) a.put("startedAt", f.startedAt());
        a.put("finishedAt", f.finishedAt());
        a.put("callbackPending", sender.has(key));
        attempts.add(a);
      });
    }
    attempts.sort(Comparator.comparingInt(a -> a.get("attempt").asInt()));
    ObjectNode report = Json.object();
    report.put("runId", runId);
    report.set("attempts", Json.MAPPER.createArrayNode().addAll(attempts));
    return report;
  }

  /** Runs accepted whose time has come, waiting for a worker (not those held for their instant): what a test waits for. */
  int waitingForWorker() {
    synchronized (lock) {
      return queue.size();
    }
  }

  /** How many times final callbacks were held back the longest (StartsFirst): what a test checks. */
  long fullCallbackHolds() {
    return startsFirst.fullHolds();
  }

  private ObjectNode health() {
    ObjectNode h = Json.object();
    synchronized (lock) {
      h.put("status", switch (phase) { case RUNNING -> "UP"; case DRAINING -> "DRAINING"; case STOPPED -> "STOPPED"; default -> "STARTING"; });
      h.put("capacity", options.concurrency);
      h.put("inFlight", running + queued());
    }
    return h;
  }

  private Object heartbeatPayload() {
    ObjectNode hb = Json.object();
    synchronized (lock) {
      hb.put("tenantId", options.tenantId);
      hb.put("app", options.app);
      hb.put("url", url);
      hb.put("capacity", options.concurrency);
      hb.put("inFlight", running + queued());
      ArrayNode names = hb.putArray("handlers");
      handlers.keySet().forEach(names::add);
      if (schemas != null) hb.set("handlerSchemas", schemas);
      hb.put("protocolVersion", PROTOCOL_VERSION);
      hb.put("startedAt", startedAt);
      hb.put("queued", queued());
      hb.put("queueLimit", options.queueLimit);
      hb.put("spooled", sender.size());
      hb.put("draining", phase != Phase.RUNNING);
      if (jobs.size() <= MAX_HEARTBEAT_ACTIVE) {
        ArrayNode active = hb.putArray("active");
        for (RunJob j : jobs.values()) active.addObject().put("runId", j.request.runId()).put("attempt", j.request.attempt());
      }
    }
    return hb;
  }

  private Response refuse(int status, String reason, String message, String field) {
    ObjectNode body = Json.object();
    body.put("accepted", false);
    body.put("reason", reason);
    body.put("message", message);
    if (field != null) body.put("field", field);
    return new Response(status, body);
  }

  // ---- runs --------------------------------------------------------------------------------

  /** Under the lock: the runs accepted and not started, in line for a worker or waiting for their instant. */
  private int queued() {
    return queue.size() + instantOf.size();
  }

  /** Under the lock: the run waits for {@code at} apart from the line. */
  private void holdUntil(RunJob job, long at) {
    instantOf.put(job, at);
    List<RunJob> held = ahead.get(at);
    if (held == null) {
      ahead.put(at, held = new ArrayList<>());
      arm(at);
    }
    held.add(job);
  }

  private void arm(long at) {
    scheduler.schedule(() -> release(at), Math.max(0, at - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
  }

  /**
   * The instant has come: its runs join the line in the order they came, and a free worker takes
   * them at once — within the sent-ahead lease; outside it they are let go, never started.
   */
  private void release(long at) {
    List<RunJob> held;
    synchronized (lock) {
      held = ahead.get(at);
      if (held == null) return; // aborted or dropped at a stop meanwhile
      // The scheduler's clock is monotonic; re-arming until the wall clock is there keeps a run from starting early.
      if (System.currentTimeMillis() < at) {
        arm(at);
        return;
      }
      ahead.remove(at);
      held.forEach(instantOf::remove);
      if (contact.fresh()) {
        held.forEach(queue::add);
        lock.notifyAll();
        return;
      }
    }
    letGo(held, contact.silence());
  }

  /** An engine answered a heartbeat: the lease renewed; a changed {@code handBacks} lets go of every run held for its instant. */
  private void heard(long sentAt, long intervalMs, JsonNode ack) {
    if (!contact.heard(sentAt, intervalMs, ack.get("handBacks"))) return;
    List<RunJob> held;
    synchronized (lock) {
      held = takeAheadAfter(Long.MIN_VALUE);
    }
    letGo(held, "the engines handed back the runs this executor held while it was out of contact");
  }

  /**
   * Runs sent ahead this executor may not start (the sent-ahead lease, protocol 3): ended ABORTED
   * NO_CONTACT without running, which the engines take as never started and dispatch again.
   */
  private void letGo(List<RunJob> jobs, String why) {
    if (jobs.isEmpty()) return;
    LOG.log(System.Logger.Level.WARNING, "[baton executor] " + jobs.size() + " run(s) sent ahead let go without starting (the engines dispatch them again): " + why);
    for (RunJob job : jobs) {
      job.abort(AbortReason.NO_CONTACT);
      finish(job, Outcome.aborted(AbortReason.NO_CONTACT.message + " (" + why + ")"), 0);
    }
  }

  /** Under the lock: takes a run sent ahead out of its wait; false when it is not waiting for its instant. */
  private boolean unhold(RunJob job) {
    Long at = instantOf.remove(job);
    if (at == null) return false;
    List<RunJob> held = ahead.get(at);
    held.remove(job);
    if (held.isEmpty()) ahead.remove(at);
    return true;
  }

  /**
   * Under the lock: takes out the runs that have not started — those in line, then those sent
   * ahead whose instant is after {@code keepUntil}.
   */
  private List<RunJob> takeUnstarted(long keepUntil) {
    List<RunJob> taken = queue.drain();
    taken.addAll(takeAheadAfter(keepUntil));
    return taken;
  }

  /** Under the lock: takes out the runs sent ahead whose instant is after {@code keepUntil}, the earliest first. */
  private List<RunJob> takeAheadAfter(long keepUntil) {
    List<RunJob> taken = new ArrayList<>();
    SortedMap<Long, List<RunJob>> later = ahead.tailMap(keepUntil, false);
    later.values().forEach(taken::addAll);
    later.clear();
    taken.forEach(instantOf::remove);
    return taken;
  }

  private void work() {
    while (true) {
      RunJob job;
      boolean lineEmpty;
      synchronized (lock) {
        while (queue.isEmpty()) {
          if (phase == Phase.STOPPED) return;
          try {
            lock.wait();
          } catch (InterruptedException e) {
            return;
          }
        }
        job = queue.poll();
        running++;
        lineEmpty = queue.isEmpty();
      }
      if (lineEmpty) startsFirst.lineEmptied();
      try {
        execute(job);
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.ERROR, "[baton executor] run " + job.key + ": " + e + TraceFields.of(job.request.runId(), job.request.attempt(), job.request.traceparent()), e);
      } finally {
        synchronized (lock) {
          running--;
          lock.notifyAll();
        }
      }
    }
  }

  private void execute(RunJob job) {
    if (job.abortReason() != null) {
      finish(job, Outcome.aborted(job.abortReason().message + " (before it started)"), 1);
      return;
    }
    if (System.currentTimeMillis() >= job.deadline) {
      job.abort(AbortReason.DEADLINE);
      finish(job, Outcome.aborted("aborted: the deadline passed before the handler started"), 1);
      return;
    }
    job.start();
    Object result = null;
    Throwable thrown = null;
    try {
      result = job.handler.handler().run(new RunContext(job));
    } catch (Throwable t) {
      thrown = t;
    } finally {
      job.detach();
    }
    finish(job, Outcome.of(result, thrown, job.abortReason(), options.maxResultBytes), 1);
  }

  /** After an abort: a handler that has not returned within abortGraceMs is reported ABORTED anyway (it keeps its worker until it returns). */
  private void graceAfterAbort(RunJob job) {
    scheduler.schedule(() -> {
      if (!"RUNNING".equals(job.state()) || job.isDone()) return;
      finish(job, Outcome.aborted(job.abortReason().message + "; the handler did not stop within " + options.abortGraceMs + " ms (abortGraceMs)"), 0);
    }, options.abortGraceMs, TimeUnit.MILLISECONDS);
  }

  /**
   * Builds the final callback and hands it to the sender; once per job. {@code freeing}: 1 when
   * the job's worker is about to be free (the callback's credit counts it), 0 otherwise.
   */
  private void finish(RunJob job, Outcome outcome, int freeing) {
    if (!job.settle()) return;
    long finishedAt = System.currentTimeMillis();
    ObjectNode cb = job.finalCallback(outcome, finishedAt);
    synchronized (lock) {
      credit(cb, freeing);
      finished.put(job.key, new Finished(outcome.outcome(), job.startedAt(), finishedAt));
      jobs.remove(job.key);
      sender.enqueue(new CallbackSender.Entry(job.key, job.request.callbackUrls(), Json.bytes(cb)));
      lock.notifyAll();
    }
  }

  // ---- lifecycle ---------------------------------------------------------------------------

  private void drain() throws InterruptedException {
    List<RunJob> unstarted;
    synchronized (lock) {
      if (phase != Phase.RUNNING) {
        phase = Phase.STOPPED;
        return;
      }
      phase = Phase.DRAINING;
      // A run sent ahead whose instant comes within the grace is kept: it was accepted, and it starts
      // then, like one running now. Failing it would fail a run that a deploy merely came close to.
      unstarted = takeUnstarted(System.currentTimeMillis() + options.shutdownGraceMs);
    }
    startsFirst.lineEmptied();
    CompletableFuture<Boolean> announce = CompletableFuture.supplyAsync(heartbeat::beat, io);
    dropUnstarted(unstarted);
    if (!jobsEmptyWithin(options.shutdownGraceMs)) {
      synchronized (lock) {
        unstarted = takeUnstarted(Long.MIN_VALUE);
      }
      dropUnstarted(unstarted);
      List<RunJob> left;
      synchronized (lock) {
        left = new ArrayList<>(jobs.values());
      }
      left.forEach(j -> j.abort(AbortReason.SHUTDOWN));
      jobsEmptyWithin(options.abortGraceMs + 1000);
    }
    sender.flush(options.shutdownFlushMs);
    waitQuietly(announce);
    heartbeat.stop();
    waitQuietly(CompletableFuture.supplyAsync(heartbeat::beat, io)); // last word: draining, nothing in flight
    int undelivered = sender.size();
    sender.stop();
    spool.close();
    synchronized (lock) {
      phase = Phase.STOPPED;
      lock.notifyAll();
    }
    server.stop();
    scheduler.shutdownNow();
    io.shutdown();
    if (undelivered > 0) LOG.log(System.Logger.Level.WARNING, "[baton executor] " + undelivered + " callback(s) not delivered before the stop" + (spool.file() != null ? ", kept in " + spool.file() : ""));
  }

  private void dropUnstarted(List<RunJob> unstarted) {
    for (RunJob job : unstarted) {
      job.abort(AbortReason.SHUTDOWN);
      finish(job, Outcome.aborted("aborted: the executor shut down before the run started"), 0);
    }
  }

  private boolean jobsEmptyWithin(long ms) throws InterruptedException {
    long until = System.currentTimeMillis() + ms;
    synchronized (lock) {
      while (!jobs.isEmpty()) {
        long left = until - System.currentTimeMillis();
        if (left <= 0) return false;
        lock.wait(left);
      }
    }
    return true;
  }

  private static void waitQuietly(CompletableFuture<?> f) {
    try {
      f.get(1, TimeUnit.SECONDS);
    } catch (Exception e) {
      // best effort
    }
  }
}
