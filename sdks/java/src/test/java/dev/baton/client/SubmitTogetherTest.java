package dev.baton.client;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * {@link BatonClient#submit} against a stand-in for {@code POST /api/runs/batch} that makes each run
 * (id = 100 + its width param), refuses a run of width below 0 on its own (400 naming
 * {@code runs[i].params.width}), and refuses a whole request that holds a run of width "deep" (as the
 * console refuses a body too deep before writing anything). Held requests wait for {@link #release}.
 */
public class SubmitTogetherTest {
  private HttpServer server;
  private BatonClient client;
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger mostInFlight = new AtomicInteger();
  private final LinkedBlockingQueue<Boolean> arrived = new LinkedBlockingQueue<>();
  private volatile CountDownLatch release = new CountDownLatch(0);

  @Before
  public void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(Executors.newCachedThreadPool());
    server.createContext("/api/runs/batch", this::batch);
    server.createContext("/api/events", this::events);
    server.start();
    client = new BatonClient("http://127.0.0.1:" + server.getAddress().getPort(), "key");
  }

  @After
  public void stop() {
    release.countDown();
    server.stop(0);
  }

  private void batch(HttpExchange ex) throws IOException {
    requests.incrementAndGet();
    mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
    try {
      arrived.add(true);
      release.await();
      JsonNode runs = BatonClient.MAPPER.readTree(ex.getRequestBody()).path("runs");
      for (JsonNode run : runs) {
        if ("deep".equals(run.path("params").path("width").asText())) {
          answer(ex, 400, "{\"statusCode\":400,\"code\":\"VALIDATION_FAILED\",\"message\":\"too deep\",\"errors\":[{\"field\":\"runs\",\"reason\":\"nested too deep\"}]}");
          return;
        }
      }
      ObjectNode body = BatonClient.MAPPER.createObjectNode();
      ArrayNode results = body.putArray("results");
      for (int i = 0; i < runs.size(); i++) {
        int width = runs.get(i).path("params").path("width").asInt();
        if (width < 0) {
          results.addObject().put("status", 400).set("error", BatonClient.MAPPER.valueToTree(Map.of("code", "VALIDATION_FAILED", "message", "bad params", "errors", List.of(Map.of("field", "runs[" + i + "].params.width", "reason", "must be at least 0")))));
        } else {
          results.addObject().put("status", 201).set("run", BatonClient.MAPPER.valueToTree(Map.of("id", 100 + width, "taskId", runs.get(i).path("taskId").asLong(), "state", "PENDING", "createdAt", 1)));
        }
      }
      answer(ex, 200, body.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      inFlight.decrementAndGet();
    }
  }

  /** Stores each event named (id = its place + 1), refuses one without a name on its own. */
  private void events(HttpExchange ex) throws IOException {
    JsonNode events = BatonClient.MAPPER.readTree(ex.getRequestBody()).path("events");
    ObjectNode body = BatonClient.MAPPER.createObjectNode();
    ArrayNode results = body.putArray("results");
    for (int i = 0; i < events.size(); i++) {
      String name = events.get(i).path("name").asText("");
      if (name.isEmpty()) {
        results.addObject().put("status", 400).set("error", BatonClient.MAPPER.valueToTree(Map.of("code", "VALIDATION_FAILED", "message", "bad", "errors", List.of(Map.of("field", "events[" + i + "].name", "reason", "must not be empty")))));
      } else {
        results.addObject().put("status", 201).set("event", BatonClient.MAPPER.valueToTree(Map.of("id", i + 1, "name", name, "runIds", List.of(), "created", true)));
      }
    }
    answer(ex, 200, body.toString());
  }

  private static void answer(HttpExchange ex, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  private CompletableFuture<TriggerResult> submit(Object width) {
    return client.submit(3, TriggerRequest.of(Map.of("width", width)));
  }

  @Test
  public void runsOfManyThreadsGoTogetherWithOneRequestInFlight() throws Exception {
    List<CompletableFuture<TriggerResult>> made = new ArrayList<>();
    var threads = Executors.newFixedThreadPool(16);
    List<CompletableFuture<CompletableFuture<TriggerResult>>> submitted = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      int width = i;
      submitted.add(CompletableFuture.supplyAsync(() -> submit(width), threads));
    }
    for (var s : submitted) made.add(s.join());
    for (int i = 0; i < 200; i++) {
      TriggerResult r = made.get(i).join();
      assertEquals(100 + i, r.run().id());
      assertEquals(3, r.run().taskId());
      assertTrue(r.created());
    }
    threads.shutdown();
    assertEquals(1, mostInFlight.get());
    assertTrue("fewer requests than runs: " + requests.get(), requests.get() < 200);
  }

  @Test
  public void whatWaitsWhileARequestIsInFlightGoesTogether() throws Exception {
    release = new CountDownLatch(1);
    CompletableFuture<TriggerResult> first = submit(0);
    arrived.take(); // the first request is in flight, held
    List<CompletableFuture<TriggerResult>> waiting = new ArrayList<>();
    for (int i = 1; i <= 5; i++) waiting.add(submit(i));
    release.countDown();
    assertEquals(100, first.join().run().id());
    for (int i = 0; i < 5; i++) assertEquals(101 + i, waiting.get(i).join().run().id());
    assertEquals("the first alone, the five that waited together", 2, requests.get());
  }

  @Test
  public void eachRefusalNamesItsOwnFieldsAndABadRunCostsNoOther() throws Exception {
    release = new CountDownLatch(1);
    CompletableFuture<TriggerResult> first = submit(0);
    arrived.take();
    Object[] widths = {1, -1, "deep", 4, 5};
    List<CompletableFuture<TriggerResult>> waiting = new ArrayList<>();
    for (Object w : widths) waiting.add(submit(w));
    release.countDown();
    first.join();
    for (int i : new int[] {0, 3, 4}) assertEquals(100 + (int) widths[i], waiting.get(i).join().run().id());
    BatonApiException negative = refusalOf(waiting.get(1));
    assertEquals(400, negative.status());
    assertEquals(List.of(new FieldError("params.width", "must be at least 0")), negative.errors());
    BatonApiException deep = refusalOf(waiting.get(2));
    assertEquals(400, deep.status());
    assertEquals("runs", deep.errors().get(0).field());
  }

  @Test
  public void pastMaxWaitingASubmitFailsAtOnce() throws Exception {
    client = client.withMaxWaiting(2);
    release = new CountDownLatch(1);
    submit(0);
    arrived.take();
    submit(1);
    submit(2);
    BatonApiException refused = refusalOf(submit(3));
    assertEquals(429, refused.status());
    assertEquals("CLIENT_BACKLOG", refused.code());
  }

  @Test
  public void submitBatchAnswersEachRunInOrder() throws Exception {
    List<BatchResult> results = client.submitBatch(List.of(BatchRun.of(3, TriggerRequest.of(Map.of("width", 7))), BatchRun.of(4, TriggerRequest.of(Map.of("width", -1)))), false);
    assertEquals(201, results.get(0).status());
    assertEquals(107, results.get(0).run().id());
    assertNull(results.get(0).refusal());
    assertEquals(400, results.get(1).status());
    assertEquals("runs[1].params.width", results.get(1).refusal().errors().get(0).field());
  }

  @Test
  public void aRunWhoseParamsAreNotJsonIsRefusedAtOnceAndAlone() {
    assertThrows(IllegalArgumentException.class, () -> client.submit(3, TriggerRequest.of(new Object())));
    assertEquals(101, submit(1).join().run().id());
    assertEquals("the bad run never left", 1, requests.get());
  }

  @Test
  public void emitAnswersEachEventOnItsOwn() {
    EmittedEvent stored = client.emit(Event.of("order.paid", Map.of("id", 1))).join();
    assertEquals("order.paid", stored.name());
    assertTrue(stored.created());
    BatonApiException refused = refusalOf(client.emit(Event.of("", Map.of())));
    assertEquals(400, refused.status());
    assertEquals("name", refused.errors().get(0).field());
  }

  private static BatonApiException refusalOf(CompletableFuture<?> future) {
    try {
      future.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof BatonApiException refused) return refused;
      throw e;
    }
    throw new AssertionError("not refused: " + future.join());
  }
}
