package dev.baton.executor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * Protocol 2: a run sent ahead of its instant ({@code startInMs}) is held, as a queued one, until
 * then; protocol 3: it starts only within the sent-ahead lease, and a changed handBacks lets it go.
 */
public class RunsSentAheadTest {
  private static final String TENANT = "acme";
  private static final String SECRET = "s3cret";
  private static final AtomicLong RUN_IDS = new AtomicLong(1000);

  /** Takes every heartbeat and callback, and keeps the final callbacks by run id. */
  private HttpServer engine;
  private String engineUrl;
  private final Map<Long, JsonNode> finals = new ConcurrentHashMap<>();
  private final Map<Long, Long> handlerStarts = new ConcurrentHashMap<>();
  /** When each final callback was taken, and when each run of the "gate" handler ended (epoch ms). */
  private final Map<Long, Long> takenAt = new ConcurrentHashMap<>();
  private final Map<Long, Long> ended = new ConcurrentHashMap<>();
  /** The "gate" handler's run returns once its latch here is counted down. */
  private final Map<Long, CountDownLatch> gates = new ConcurrentHashMap<>();
  /** The tasks of the "line" handler's runs, in the order they started. */
  private final List<String> startOrder = new CopyOnWriteArrayList<>();
  private BatonExecutor executor;
  /** Heartbeats: answered 503 while {@code failHeartbeats}, else with {@code intervalMs} and {@code handBacks} (null: not sent); {@code acks} counts the answered ones. */
  private volatile boolean failHeartbeats;
  private volatile long intervalMs = 1000;
  private volatile Long handBacks;
  private final AtomicLong acks = new AtomicLong();

  @Before
  public void startEngine() throws IOException {
    engine = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    engine.createContext("/baton", this::answer);
    engine.start();
    engineUrl = "http://127.0.0.1:" + engine.getAddress().getPort();
  }

  @After
  public void stopAll() {
    if (executor != null) executor.stop();
    engine.stop(0);
  }

  private void answer(HttpExchange ex) throws IOException {
    JsonNode body = Json.parse(ex.getRequestBody().readAllBytes());
    String reply = "{}";
    if (ex.getRequestURI().getPath().endsWith("/heartbeat")) {
      if (failHeartbeats) {
        ex.sendResponseHeaders(503, -1);
        ex.close();
        return;
      }
      reply = "{\"executorId\":1,\"intervalMs\":" + intervalMs + (handBacks != null ? ",\"handBacks\":" + handBacks : "") + "}";
      acks.incrementAndGet();
    } else if (ex.getRequestURI().getPath().endsWith("/batch")) {
      StringBuilder results = new StringBuilder("{\"results\":[");
      for (int i = 0; i < body.get("callbacks").size(); i++) {
        record(body.get("callbacks").get(i));
        results.append(i > 0 ? "," : "").append("{\"status\":200,\"body\":{}}");
      }
      reply = results.append("]}").toString();
    } else {
      record(body);
    }
    byte[] bytes = reply.getBytes(StandardCharsets.UTF_8);
    ex.sendResponseHeaders(200, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  private void record(JsonNode callback) {
    if (!callback.has("outcome")) return;
    takenAt.put(callback.get("runId").asLong(), System.currentTimeMillis());
    finals.put(callback.get("runId").asLong(), callback);
  }

  private void start(int concurrency, int queueLimit, long shutdownGraceMs) throws IOException, InterruptedException {
    executor = new BatonExecutor(new ExecutorOptions().tenantId(TENANT).secret(SECRET).engineUrls(List.of(engineUrl))
        .concurrency(concurrency).queueLimit(queueLimit).shutdownGraceMs(shutdownGraceMs).noSpool())
        .handler("stamp", ctx -> {
          handlerStarts.put(ctx.runId(), System.currentTimeMillis());
          return "ok";
        })
        .handler("gate", ctx -> {
          gates.get(ctx.runId()).await();
          ended.put(ctx.runId(), System.currentTimeMillis());
          return null;
        })
        .handler("line", ctx -> {
          startOrder.add(ctx.taskName());
          gates.get(ctx.runId()).await();
          return null;
        })
        .handler("sleep", ctx -> {
          ctx.sleep(ctx.params().get("ms").asLong());
          return null;
        });
    executor.start();
    // Heard by an engine first: a run sent ahead starts only within the lease of an answered heartbeat.
    until(() -> acks.get() > 0);
  }

  private ObjectNode request(Integer startInMs) {
    ObjectNode r = Json.object();
    r.put("runId", RUN_IDS.incrementAndGet()).put("attempt", 1).put("tenantId", TENANT).put("taskId", 3).put("taskName", "t").put("handler", "stamp");
    r.putNull("params");
    r.put("scheduledAt", System.currentTimeMillis()).put("deadline", System.currentTimeMillis() + 60_000);
    r.putArray("callbackUrls").add(engineUrl);
    if (startInMs != null) r.put("startInMs", startInMs);
    return r;
  }

  private BatonExecutor.Response send(String method, String path, JsonNode body) {
    byte[] bytes = body == null ? new byte[0] : Json.bytes(body);
    Map<String, String> headers = Signing.sign(SECRET, TENANT, method, path, bytes, System.currentTimeMillis());
    return executor.handle(method, path, headers::get, bytes, System.currentTimeMillis());
  }

  private JsonNode finalOf(long runId) throws InterruptedException {
    long until = System.currentTimeMillis() + 5_000;
    while (!finals.containsKey(runId) && System.currentTimeMillis() < until) Thread.sleep(10);
    assertNotNull("final callback of run " + runId, finals.get(runId));
    return finals.get(runId);
  }

  /** Runs waiting for a worker take it task by task in turn: one line started b1 b2 b3 b4 i1 c1 i2. */
  @Test
  public void runsInLineTakeTheWorkerTaskByTask() throws Exception {
    start(1, 10, 10_000);
    String[][] runs = {{"1", "b1"}, {"1", "b2"}, {"1", "b3"}, {"1", "b4"}, {"2", "i1"}, {"3", "c1"}, {"2", "i2"}};
    List<CountDownLatch> latches = new java.util.ArrayList<>();
    for (String[] run : runs) {
      ObjectNode r = request(null).put("handler", "line").put("taskId", Long.parseLong(run[0])).put("taskName", run[1]);
      CountDownLatch gate = new CountDownLatch(1);
      gates.put(r.get("runId").asLong(), gate);
      latches.add(gate);
      assertEquals(202, send("POST", "/baton/runs", r).status());
      if (latches.size() == 1) until(() -> startOrder.size() == 1);
    }
    for (int started = 1; started < runs.length; started++) {
      final int next = started + 1;
      // The run that holds the worker ends; the next one in turn takes it.
      latches.get(runIndex(runs, startOrder.get(started - 1))).countDown();
      until(() -> startOrder.size() == next);
    }
    latches.forEach(CountDownLatch::countDown);
    assertEquals(List.of("b1", "b2", "i1", "c1", "b3", "i2", "b4"), startOrder);
  }

  private static int runIndex(String[][] runs, String name) {
    for (int i = 0; i < runs.length; i++) if (runs[i][1].equals(name)) return i;
    throw new IllegalArgumentException(name);
  }

  private static void until(java.util.function.BooleanSupplier done) throws InterruptedException {
    long until = System.currentTimeMillis() + 5_000;
    while (!done.getAsBoolean() && System.currentTimeMillis() < until) Thread.sleep(10);
    assertTrue("timed out", done.getAsBoolean());
  }

  @Test
  public void holdsARunUntilItsInstantAsAQueuedOneAndAnAbortBeforeItDropsIt() throws Exception {
    start(1, 1, 10_000);
    ObjectNode held = request(150);
    ObjectNode dropped = request(150);
    long sentAt = System.currentTimeMillis();
    BatonExecutor.Response first = send("POST", "/baton/runs", held);
    assertEquals(202, first.status());
    assertEquals("one of the two places is left", 1, first.body().get("credit").asInt());
    assertEquals(202, send("POST", "/baton/runs", dropped).status());
    // Both places (1 worker + 1 in line) are spoken for until the instant.
    assertEquals(429, send("POST", "/baton/runs", request(150)).status());
    assertEquals(2, send("GET", "/baton/health", null).body().get("inFlight").asInt());
    JsonNode status = send("GET", "/baton/runs/" + held.get("runId").asLong(), null).body();
    assertEquals("QUEUED", status.get("attempts").get(0).get("state").asText());

    ObjectNode abort = Json.object().put("runId", dropped.get("runId").asLong()).put("attempt", 1).put("reason", "CANCELLED");
    BatonExecutor.Response aborted = send("POST", "/baton/runs/" + dropped.get("runId").asLong() + "/abort", abort);
    assertEquals(202, aborted.status());
    assertEquals("QUEUED", aborted.body().get("state").asText());
    JsonNode droppedCb = finalOf(dropped.get("runId").asLong());
    assertEquals("ABORTED", droppedCb.get("outcome").asText());
    assertEquals("CANCELLED", droppedCb.get("abortReason").asText());
    assertTrue(droppedCb.get("error").asText(), droppedCb.get("error").asText().contains("before it started"));
    assertFalse(droppedCb.has("startedAt"));

    JsonNode heldCb = finalOf(held.get("runId").asLong());
    assertEquals("SUCCEEDED", heldCb.get("outcome").asText());
    assertTrue("started " + (heldCb.get("startedAt").asLong() - sentAt) + " ms after it was sent", heldCb.get("startedAt").asLong() - sentAt >= 150);
    assertTrue(handlerStarts.get(held.get("runId").asLong()) - sentAt >= 150);
    assertFalse(handlerStarts.containsKey(dropped.get("runId").asLong()));
  }

  @Test
  public void aRunDueNowStillTakesAFreeWorkerAndARunAtItsInstantWaitsInLineForOne() throws Exception {
    start(1, 0, 10_000);
    // Held for 2 s: far longer than two local requests take, so the run due now finds the worker free.
    ObjectNode held = request(2_000);
    assertEquals(202, send("POST", "/baton/runs", held).status());
    ObjectNode now = request(0).put("handler", "gate");
    CountDownLatch gate = new CountDownLatch(1);
    gates.put(now.get("runId").asLong(), gate);
    assertEquals(202, send("POST", "/baton/runs", now).status());
    assertEquals("no worker and no queue place is left", 429, send("POST", "/baton/runs", request(null)).status());
    // The held run's instant comes while the gate run holds the only worker: it moves to the line for one.
    long until = System.currentTimeMillis() + 10_000;
    while (executor.waitingForWorker() == 0 && System.currentTimeMillis() < until) Thread.sleep(10);
    assertEquals("the held run waits in line for the worker", 1, executor.waitingForWorker());
    assertFalse("not started while the worker is busy", handlerStarts.containsKey(held.get("runId").asLong()));
    gate.countDown();
    JsonNode heldCb = finalOf(held.get("runId").asLong());
    assertEquals("SUCCEEDED", heldCb.get("outcome").asText());
    assertTrue("held until the worker was free", heldCb.get("startedAt").asLong() >= ended.get(now.get("runId").asLong()));
  }

  @Test
  public void refusesABadStartInMsNamingIt() throws Exception {
    start(1, 1, 10_000);
    for (String bad : new String[] {"-1", "1.5", "\"10\"", "60001", "null"}) {
      ObjectNode r = request(null);
      r.set("startInMs", Json.parse(bad));
      BatonExecutor.Response answer = send("POST", "/baton/runs", r);
      assertEquals(bad, 400, answer.status());
      assertEquals(bad, "startInMs", answer.body().get("field").asText());
    }
    ObjectNode batch = Json.object();
    batch.putArray("runs").add(request(-5));
    JsonNode result = send("POST", "/baton/runs/batch", batch).body().get("results").get(0);
    assertEquals(400, result.get("status").asInt());
    assertEquals("runs[0].startInMs", result.get("body").get("field").asText());
  }

  @Test
  public void aStopKeepsARunWhoseInstantComesWithinTheGraceAndDropsTheOthers() throws Exception {
    start(2, 2, 1_000);
    ObjectNode soon = request(300);
    ObjectNode late = request(5_000);
    long sentAt = System.currentTimeMillis();
    assertEquals(202, send("POST", "/baton/runs", soon).status());
    assertEquals(202, send("POST", "/baton/runs", late).status());
    executor.stop();
    JsonNode soonCb = finalOf(soon.get("runId").asLong());
    assertEquals("SUCCEEDED", soonCb.get("outcome").asText());
    assertTrue(soonCb.get("startedAt").asLong() - sentAt >= 300);
    JsonNode lateCb = finalOf(late.get("runId").asLong());
    assertEquals("ABORTED", lateCb.get("outcome").asText());
    assertEquals("SHUTDOWN", lateCb.get("abortReason").asText());
    assertFalse(lateCb.has("startedAt"));
    assertTrue("the stop took " + (System.currentTimeMillis() - sentAt) + " ms", System.currentTimeMillis() - sentAt < 1_500);
  }

  /** Protocol 3: a run whose instant comes past the lease (2 × the acked interval) after the last answered heartbeat is let go unstarted. */
  @Test
  public void letsARunSentAheadGoWhenNoEngineAnsweredWithinTheLease() throws Exception {
    intervalMs = 100; // a 200 ms lease
    start(1, 1, 10_000);
    failHeartbeats = true; // cut off from here on
    ObjectNode cut = request(800);
    assertEquals(202, send("POST", "/baton/runs", cut).status());
    JsonNode cb = finalOf(cut.get("runId").asLong());
    assertEquals("ABORTED", cb.get("outcome").asText());
    assertEquals("NO_CONTACT", cb.get("abortReason").asText());
    assertTrue(cb.get("error").asText(), cb.get("error").asText().contains("no engine has answered a heartbeat for"));
    assertFalse(cb.has("startedAt"));
    assertFalse(handlerStarts.containsKey(cut.get("runId").asLong()));
    // A run due now is not held: it runs, contact or not.
    ObjectNode now = request(null);
    assertEquals(202, send("POST", "/baton/runs", now).status());
    assertEquals("SUCCEEDED", finalOf(now.get("runId").asLong()).get("outcome").asText());
  }

  /** Protocol 3: a changed handBacks in an ack lets go of every run held for its instant; the first ack's only sets it. */
  @Test
  public void aChangedHandBacksLetsGoOfTheRunsHeld() throws Exception {
    intervalMs = 20;
    handBacks = 7L;
    start(1, 1, 10_000);
    ObjectNode held = request(60_000);
    assertEquals(202, send("POST", "/baton/runs", held).status());
    long seen = acks.get();
    until(() -> acks.get() > seen + 1);
    assertFalse("let go with handBacks unchanged", finals.containsKey(held.get("runId").asLong()));
    handBacks = 8L;
    JsonNode cb = finalOf(held.get("runId").asLong());
    assertEquals("ABORTED", cb.get("outcome").asText());
    assertEquals("NO_CONTACT", cb.get("abortReason").asText());
    assertTrue(cb.get("error").asText(), cb.get("error").asText().contains("handed back"));
    assertFalse(handlerStarts.containsKey(held.get("runId").asLong()));
    assertEquals(0, send("GET", "/baton/health", null).body().get("inFlight").asInt());
  }

  /**
   * A run sent ahead counts its wait from its request's arrival, not from when its body was read
   * and judged: a batch whose body comes 400 ms after its headers starts its runs startInMs after
   * the headers came, never earlier.
   */
  @Test
  public void aRunSentAheadCountsFromItsRequestsArrivalNotFromWhenItsBodyCame() throws Exception {
    start(2, 2, 10_000);
    int startInMs = 600;
    ObjectNode batch = Json.object();
    batch.putArray("runs").add(request(startInMs)).add(request(startInMs));
    byte[] body = Json.bytes(batch);
    URI url = URI.create(executor.url());
    long sentAt;
    long bodyAt;
    String status;
    try (Socket socket = new Socket(url.getHost(), url.getPort())) {
      StringBuilder head = new StringBuilder("POST /baton/runs/batch HTTP/1.1\r\nHost: executor\r\nContent-Type: application/json\r\nContent-Length: " + body.length + "\r\n");
      Signing.sign(SECRET, TENANT, "POST", "/baton/runs/batch", body, System.currentTimeMillis()).forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
      OutputStream out = socket.getOutputStream();
      sentAt = System.currentTimeMillis();
      out.write(head.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
      out.flush();
      Thread.sleep(400);
      bodyAt = System.currentTimeMillis();
      out.write(body);
      out.flush();
      status = new String(socket.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
    }
    assertEquals("HTTP/1.1 200", status);
    for (JsonNode run : batch.get("runs")) {
      long runId = run.get("runId").asLong();
      assertEquals("SUCCEEDED", finalOf(runId).get("outcome").asText());
      long started = handlerStarts.get(runId);
      assertTrue("run " + runId + " started " + (started - sentAt) + " ms after its headers were sent, before its startInMs", started - sentAt >= startInMs);
      assertTrue("run " + runId + " started " + (started - bodyAt) + " ms after its body came: counted from the judging, not the arrival", started - bodyAt < startInMs - 100);
    }
  }

  /**
   * While runs wait in line for a worker, a final callback is held back — starting them goes
   * first — for MOST_HELD_MS at most; once the line is empty, held callbacks go at once.
   */
  @Test
  public void finalCallbacksWaitWhileRunsWaitInLine() throws Exception {
    start(1, 2, 10_000);
    long[] runIds = new long[3];
    for (int i = 0; i < 3; i++) {
      ObjectNode run = request(null).put("handler", "gate");
      runIds[i] = run.get("runId").asLong();
      gates.put(runIds[i], new CountDownLatch(1));
      assertEquals(202, send("POST", "/baton/runs", run).status());
    }
    long until = System.currentTimeMillis() + 5_000;
    while (send("GET", "/baton/runs/" + runIds[0], null).body().get("attempts").get(0).get("state").asText().equals("QUEUED") && System.currentTimeMillis() < until) Thread.sleep(5);

    gates.get(runIds[0]).countDown(); // the second run starts, the third still waits in line
    finalOf(runIds[0]);
    long held = takenAt.get(runIds[0]) - ended.get(runIds[0]);
    // Held: by the hold's whole length, as nothing emptied the line (a lower bound: a loaded machine only makes it later).
    assertEquals(1, executor.fullCallbackHolds());
    assertTrue("taken " + held + " ms after it ended, while a run waited in line", held >= StartsFirst.MOST_HELD_MS - 1);

    gates.get(runIds[1]).countDown(); // the third run starts: the line is empty
    finalOf(runIds[1]);
    assertEquals("not held to the end: the line emptied then", 1, executor.fullCallbackHolds());

    gates.get(runIds[2]).countDown();
    finalOf(runIds[2]);
    assertEquals("not held to the end: nothing in line", 1, executor.fullCallbackHolds());
  }
}
