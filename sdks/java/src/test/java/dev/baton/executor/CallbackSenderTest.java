package dev.baton.executor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.Test;

public class CallbackSenderTest {
  /** Takes 20 ms per callback request, takes every callback, and records the most requests in flight at once. */
  private static final class SlowEngine {
    final AtomicInteger requests = new AtomicInteger();
    final AtomicInteger callbacks = new AtomicInteger();
    final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger maxInFlight = new AtomicInteger();

    void handle(HttpExchange ex) throws IOException {
      maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
      requests.incrementAndGet();
      JsonNode body = Json.parse(ex.getRequestBody().readAllBytes());
      StringBuilder reply = new StringBuilder("{}");
      if (ex.getRequestURI().getPath().endsWith("/batch")) {
        int n = body.get("callbacks").size();
        callbacks.addAndGet(n);
        reply = new StringBuilder("{\"results\":[");
        for (int i = 0; i < n; i++) reply.append(i > 0 ? "," : "").append("{\"status\":200,\"body\":{}}");
        reply.append("]}");
      } else {
        callbacks.incrementAndGet();
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      inFlight.decrementAndGet(); // before the answer: the sender may start its next request once it has it
      byte[] bytes = reply.toString().getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(200, bytes.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  @Test
  public void atMostTwoBatchRequestsPerEngineAndWhatBecomesReadyMeanwhileJoinsTheNext() throws Exception {
    SlowEngine engine = new SlowEngine();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    ExecutorService serverThreads = Executors.newCachedThreadPool();
    server.setExecutor(serverThreads); // answers concurrently, so more than 2 in flight would show
    server.createContext("/baton/callbacks", engine::handle);
    server.start();
    String url = "http://127.0.0.1:" + server.getAddress().getPort();
    ScheduledThreadPoolExecutor scheduler = Threads.scheduler("test-timers", 1);
    CallbackSender sender = new CallbackSender(new EngineClient("t1", "secret", 5_000), List.of(url), 200, 30_000, 32, 1000, scheduler, CallbackSpool.memory(), new StartsFirst(() -> false, scheduler));
    try {
      sender.enqueue(entry(0)); // a first connection and warm code, so that what follows is the steady state
      assertTrue(sender.flush(10_000));
      engine.requests.set(0);
      engine.callbacks.set(0);
      for (int run = 1; run <= 50; run++) {
        sender.enqueue(entry(run));
        Thread.sleep(2);
      }
      assertTrue("all delivered", sender.flush(10_000));
      assertEquals(50, engine.callbacks.get());
      assertTrue("50 callbacks took " + engine.requests.get() + " requests", engine.requests.get() <= 10);
      assertTrue(engine.maxInFlight.get() + " requests in flight at once", engine.maxInFlight.get() <= 2);
    } finally {
      sender.stop();
      scheduler.shutdownNow();
      server.stop(0);
      serverThreads.shutdownNow();
    }
  }

  /**
   * A callback refused with 429 (an engine's tenant admission) is kept and sent again after the
   * engine's Retry-After — not earlier, though another callback taken meanwhile wakes the ones in
   * backoff.
   */
  @Test
  public void aCallbackRefusedWith429IsSentAgainAfterRetryAfterNotWhenAnotherSucceeds() throws Exception {
    java.util.Map<Integer, List<Long>> arrivals = new java.util.concurrent.ConcurrentHashMap<>();
    AtomicInteger refusals = new AtomicInteger(1);
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/baton/callbacks", ex -> {
      JsonNode body = Json.parse(ex.getRequestBody().readAllBytes());
      int run = body.path("runId").asInt();
      arrivals.computeIfAbsent(run, k -> new java.util.concurrent.CopyOnWriteArrayList<>()).add(System.currentTimeMillis());
      boolean refuse = refusals.getAndDecrement() > 0;
      byte[] bytes = (refuse ? "{\"statusCode\":429,\"code\":\"TENANT_BUSY\",\"error\":\"Too Many Requests\",\"message\":\"busy (test)\",\"retryAfterSeconds\":1}" : "{}").getBytes(StandardCharsets.UTF_8);
      if (refuse) ex.getResponseHeaders().add("Retry-After", "1");
      ex.sendResponseHeaders(refuse ? 429 : 200, bytes.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    });
    server.start();
    String url = "http://127.0.0.1:" + server.getAddress().getPort();
    ScheduledThreadPoolExecutor scheduler = Threads.scheduler("test-timers", 1);
    CallbackSender sender = new CallbackSender(new EngineClient("t1", "secret", 5_000), List.of(url), 20, 100, 32, 1000, scheduler, CallbackSpool.memory(), new StartsFirst(() -> false, scheduler));
    try {
      sender.enqueue(entry(1));
      long deadline = System.currentTimeMillis() + 5_000;
      while (!arrivals.containsKey(1) && System.currentTimeMillis() < deadline) Thread.sleep(5);
      Thread.sleep(50); // its answer is in: it waits in backoff
      sender.enqueue(entry(2)); // taken at once: a success wakes the callbacks in backoff
      assertTrue("all delivered", sender.flush(5_000));
      List<Long> first = arrivals.get(1);
      assertEquals(2, first.size());
      assertTrue("run 2 taken before run 1's retry", arrivals.get(2).get(0) < first.get(1));
      assertTrue("sent again " + (first.get(1) - first.get(0)) + " ms after its 429", first.get(1) - first.get(0) >= 990);
    } finally {
      sender.stop();
      scheduler.shutdownNow();
      server.stop(0);
    }
  }

  /**
   * An engine that hangs (black-holed, frozen) accepts connections and never answers: callbacks
   * listed for it first reach the next engine after rerouteAfterMs, while it still holds them and
   * long before the request timeout (a minute). With callbackConcurrency 1, the request the
   * hanging engine holds must not keep the only permit.
   */
  @Test(timeout = 60_000)
  public void callbacksGoAroundAHangingEngine() throws Exception {
    SlowEngine live = new SlowEngine();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/baton/callbacks", live::handle);
    server.start();
    List<Socket> held = new CopyOnWriteArrayList<>();
    ScheduledThreadPoolExecutor scheduler = Threads.scheduler("test-timers", 1);
    CallbackSender sender = null;
    try (ServerSocket hanging = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread acceptor = new Thread(() -> {
        try {
          while (true) held.add(hanging.accept());
        } catch (IOException closed) {
          // the test is over
        }
      });
      acceptor.setDaemon(true);
      acceptor.start();
      String hangingUrl = "http://127.0.0.1:" + hanging.getLocalPort();
      String liveUrl = "http://127.0.0.1:" + server.getAddress().getPort();
      sender = new CallbackSender(new EngineClient("t1", "secret", 60_000), List.of(hangingUrl, liveUrl), 200, 30_000, 1, 100, scheduler, CallbackSpool.memory(), new StartsFirst(() -> false, scheduler));
      for (int run = 1; run <= 5; run++) sender.enqueue(entry(run));
      // A generous deadline, still far below the minute the hanging engine's requests wait.
      assertTrue("all delivered", sender.flush(30_000));
      assertEquals(5, live.callbacks.get());
      assertTrue("the hanging engine was tried", !held.isEmpty());
    } finally {
      if (sender != null) sender.stop();
      scheduler.shutdownNow();
      server.stop(0);
      for (Socket s : held) s.close();
    }
  }

  /** The SDK's line about a callback refused for good names the run's trace when it has one (the Node SDK's field names), none otherwise. */
  @Test
  public void aLineAboutARunsCallbackNamesItsTrace() throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/baton/callbacks", ex -> {
      JsonNode body = Json.parse(ex.getRequestBody().readAllBytes());
      boolean batch = ex.getRequestURI().getPath().endsWith("/batch");
      StringBuilder reply = new StringBuilder(batch ? "{\"results\":[" : "");
      String refusal = "{\"statusCode\":400,\"code\":\"BAD_REQUEST\",\"error\":\"Bad Request\",\"message\":\"no (test)\"}";
      if (batch) {
        for (int i = 0; i < body.get("callbacks").size(); i++) reply.append(i > 0 ? "," : "").append("{\"status\":400,\"body\":").append(refusal).append("}");
        reply.append("]}");
      } else {
        reply.append(refusal);
      }
      byte[] bytes = reply.toString().getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(batch ? 200 : 400, bytes.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    });
    server.start();
    List<String> lines = new CopyOnWriteArrayList<>();
    java.util.logging.Logger jul = java.util.logging.Logger.getLogger("dev.baton.executor");
    java.util.logging.Handler capture = new java.util.logging.Handler() {
      @Override public void publish(java.util.logging.LogRecord r) { lines.add(r.getMessage()); }
      @Override public void flush() {}
      @Override public void close() {}
    };
    jul.addHandler(capture);
    String url = "http://127.0.0.1:" + server.getAddress().getPort();
    ScheduledThreadPoolExecutor scheduler = Threads.scheduler("test-timers", 1);
    CallbackSender sender = new CallbackSender(new EngineClient("t1", "secret", 5_000), List.of(url), 20, 100, 32, 1000, scheduler, CallbackSpool.memory(), new StartsFirst(() -> false, scheduler));
    try {
      String traced = "{\"runId\":7,\"attempt\":2,\"outcome\":\"SUCCEEDED\",\"traceparent\":\"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\"}";
      sender.enqueue(new CallbackSender.Entry("7:2", List.of(), traced.getBytes(StandardCharsets.UTF_8)));
      sender.enqueue(entry(8));
      assertTrue("both settled", sender.flush(5_000));
      List<String> refused = lines.stream().filter(l -> l.contains("refused for good")).sorted().toList();
      assertEquals(2, refused.size());
      assertTrue(refused.get(0), refused.get(0).startsWith("[baton executor] callback of run 7:2 refused for good") && refused.get(0).endsWith(" runId=7 attempt=2 trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7"));
      assertTrue(refused.get(1), refused.get(1).startsWith("[baton executor] callback of run 8:1 refused for good") && !refused.get(1).contains("trace_id"));
    } finally {
      jul.removeHandler(capture);
      sender.stop();
      scheduler.shutdownNow();
      server.stop(0);
    }
  }

  private static CallbackSender.Entry entry(int run) {
    return new CallbackSender.Entry(run + ":1", List.of(), ("{\"runId\":" + run + ",\"attempt\":1,\"outcome\":\"SUCCEEDED\"}").getBytes(StandardCharsets.UTF_8));
  }
}
