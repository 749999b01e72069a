package dev.baton.executor;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** The executor's routes on the JDK's HTTP server: each request's method, path, headers and body go to the executor, its answer back as JSON. */
final class ExecutorHttpServer {
  private static final System.Logger LOG = System.getLogger("dev.baton.executor");

  /** What answers a request: {@code body} is null when it was larger than the limit; {@code arrivedAt} is when it began to be served (epoch ms). */
  interface Routes {
    BatonExecutor.Response handle(String method, String path, java.util.function.Function<String, String> header, byte[] body, long arrivedAt);
  }

  private final HttpServer server;
  private final ExecutorService threads;
  private final String host;
  private final int maxBodyBytes;
  private final Routes routes;

  static {
    // The JDK server writes a response's headers and body apart and leaves Nagle's algorithm on:
    // with the engine's delayed ACKs every answer waited ~40 ms (measured: a dispatch's 202 took
    // 48 ms at the median, 2.7 ms with TCP_NODELAY). Read once, when the first HttpServer is made.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) System.setProperty("sun.net.httpserver.nodelay", "true");
  }

  ExecutorHttpServer(String host, int port, int threads, int maxBodyBytes, Routes routes) throws IOException {
    this.host = host;
    this.maxBodyBytes = maxBodyBytes;
    this.routes = routes;
    this.threads = Executors.newFixedThreadPool(threads, r -> Threads.daemon("baton-http", r));
    this.server = HttpServer.create(new InetSocketAddress(host, port), 128);
    server.setExecutor(this.threads);
    server.createContext("/", this::serve);
    server.start();
  }

  /** The bound URL (a wildcard address as loopback). */
  String url() {
    String h = host.equals("0.0.0.0") || host.equals("::") ? "127.0.0.1" : host;
    return "http://" + (h.contains(":") ? "[" + h + "]" : h) + ":" + server.getAddress().getPort();
  }

  void stop() {
    server.stop(0);
    threads.shutdown();
  }

  private void serve(HttpExchange ex) throws IOException {
    // Before the body is read: a run sent ahead counts its wait from here, so reading and judging
    // a large batch on a busy machine does not start its runs late.
    long arrivedAt = System.currentTimeMillis();
    try (ex) {
      String method = ex.getRequestMethod().toUpperCase(java.util.Locale.ROOT);
      String path = ex.getRequestURI().getRawPath();
      String declared = ex.getRequestHeaders().getFirst("content-length");
      boolean fits = declared == null || declared.matches("\\d{1,12}") && Long.parseLong(declared) <= maxBodyBytes;
      byte[] body = fits ? readAtMost(ex.getRequestBody(), maxBodyBytes) : null;
      if (body == null) ex.getResponseHeaders().set("connection", "close"); // the rest of a too-large body is not read
      BatonExecutor.Response response;
      try {
        response = routes.handle(method, path, name -> ex.getRequestHeaders().getFirst(name), body, arrivedAt);
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.ERROR, "[baton executor] internal error on " + method + " " + path, e);
        com.fasterxml.jackson.databind.node.ObjectNode error = Json.object().put("accepted", false).put("reason", "BAD_REQUEST").put("message", "internal error of the executor");
        response = new BatonExecutor.Response(500, error);
      }
      byte[] bytes = Json.bytes(response.body());
      ex.getResponseHeaders().set("content-type", "application/json; charset=utf-8");
      ex.sendResponseHeaders(response.status(), bytes.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  /** The body, or null when it is longer than {@code max} bytes. */
  private static byte[] readAtMost(InputStream in, int max) throws IOException {
    byte[] body = in.readNBytes(max + 1);
    return body.length > max ? null : body;
  }
}
