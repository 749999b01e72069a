package dev.baton.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A console on 127.0.0.1 that answers each request with the next scripted reply (and 500 when
 * none is left), and records what it was sent. A reply of status 0 closes the connection unanswered.
 */
final class FakeConsole implements AutoCloseable {
  record Reply(int status, Map<String, String> headers, String body) {}

  record Request(String path, String apiKey, String idempotencyKey, String contentType, String body) {}

  final List<Request> requests = new CopyOnWriteArrayList<>();
  private final ConcurrentLinkedQueue<Reply> replies = new ConcurrentLinkedQueue<>();
  private final HttpServer server;

  FakeConsole() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  FakeConsole reply(int status, String body) {
    return reply(status, Map.of(), body);
  }

  FakeConsole reply(int status, Map<String, String> headers, String body) {
    replies.add(new Reply(status, headers, body));
    return this;
  }

  /** The next request gets no answer: its connection is closed. */
  FakeConsole hangUp() {
    return reply(0, "");
  }

  private void handle(HttpExchange ex) throws IOException {
    var h = ex.getRequestHeaders();
    requests.add(new Request(ex.getRequestURI().getPath(), h.getFirst("X-API-Key"), h.getFirst("Idempotency-Key"), h.getFirst("Content-Type"), new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
    Reply r = replies.poll();
    if (r == null) r = new Reply(500, Map.of(), "{\"statusCode\":500,\"code\":\"INTERNAL\",\"message\":\"no reply scripted\"}");
    if (r.status() == 0) {
      ex.close(); // before any response header: the server drops the connection
      return;
    }
    byte[] bytes = r.body().getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    r.headers().forEach(ex.getResponseHeaders()::set);
    ex.sendResponseHeaders(r.status(), bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
