package dev.baton.executor;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import dev.baton.http.RetryAfter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Signed JSON POSTs to engines on the JDK's HttpClient (HTTP/1.1, keep-alive), and the order
 * engine URLs are tried in: as given — a dispatch lists its own engine first, so each engine
 * records the runs it fired — except that engines which failed, or were too slow to answer a
 * callback ({@link #setAside}), in the last few seconds go last. A hanging engine stays last while
 * it keeps hanging: each time it is tried again and does not answer in time, it is set aside anew.
 */
final class EngineClient {
  /** The answer of an engine; {@code status} 0 when no HTTP answer came; {@code retryAfterMs} a 429's {@code Retry-After} (0: none). */
  record Answer(String url, int status, JsonNode body, String error, long retryAfterMs) {
    Answer(String url, int status, JsonNode body, String error) {
      this(url, status, body, error, 0);
    }

    boolean delivered() {
      return (status >= 200 && status < 300) || status == 409;
    }

    /** The engine says the callback itself is malformed: sending it again cannot help. */
    boolean rejectedForGood() {
      return status == 400 || status == 413 || status == 422;
    }

    /** Status, and the code and message of the engine's ErrorBody when it sent one. */
    String describe() {
      if (status == 0) return url + ": " + error;
      String detail = body != null && body.path("code").isTextual() ? " " + body.get("code").asText() + ": " + body.path("message").asText() : "";
      return url + ": HTTP " + status + detail;
    }
  }

  private static final long FAILED_ENGINE_LAST_MS = 5_000;
  private final String tenantId;
  private final String secret;
  private final Duration timeout;
  private final HttpClient http;
  private final Map<String, Long> failedUntil = new ConcurrentHashMap<>();

  EngineClient(String tenantId, String secret, long timeoutMs) {
    this.tenantId = tenantId;
    this.secret = secret;
    this.timeout = Duration.ofMillis(timeoutMs);
    this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timeout).build();
  }

  /** {@code urls} deduplicated, in the given order, engines that failed lately last. */
  List<String> order(Collection<String> urls) {
    long now = System.currentTimeMillis();
    List<String> fresh = new ArrayList<>();
    List<String> failed = new ArrayList<>();
    for (String u : new LinkedHashSet<>(urls)) (failedUntil.getOrDefault(u, 0L) > now ? failed : fresh).add(u);
    fresh.addAll(failed);
    return fresh;
  }

  /** Tries {@code url} after the others for a while: it did not answer in time (it may still). */
  void setAside(String url) {
    failedUntil.put(url, System.currentTimeMillis() + FAILED_ENGINE_LAST_MS);
  }

  /** POSTs {@code body} to {@code baseUrl + path}, signed over {@code path}. Never throws. */
  Answer post(String baseUrl, String path, byte[] body) {
    return post(baseUrl, path, body, timeout);
  }

  /** As post, given up after {@code within} (shorter than the request timeout: a heartbeat's try of one engine). */
  Answer post(String baseUrl, String path, byte[] body, Duration within) {
    Answer answer = send(baseUrl, path, body, within.compareTo(timeout) < 0 ? within : timeout);
    if (answer.status() >= 200 && answer.status() < 500 && answer.status() != 429) failedUntil.remove(baseUrl);
    else failedUntil.put(baseUrl, System.currentTimeMillis() + FAILED_ENGINE_LAST_MS);
    return answer;
  }

  private Answer send(String baseUrl, String path, byte[] body, Duration within) {
    try {
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(within).header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(body));
      Signing.sign(secret, tenantId, "POST", path, body, System.currentTimeMillis()).forEach(request::header);
      HttpResponse<byte[]> res = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
      JsonNode parsed = null;
      try {
        if (res.body().length > 0) parsed = Json.parse(res.body());
      } catch (java.io.IOException notJson) {
        // keep null: the status says enough
      }
      return new Answer(baseUrl, res.statusCode(), parsed, null, res.statusCode() == 429 ? RetryAfter.of(res.headers().firstValue("retry-after").orElse(null)).toMillis() : 0);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Answer(baseUrl, 0, null, "interrupted");
    } catch (Exception e) {
      return new Answer(baseUrl, 0, null, e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
    }
  }
}
