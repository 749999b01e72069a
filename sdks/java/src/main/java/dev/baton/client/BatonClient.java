package dev.baton.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.http.RetryAfter;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * Submits work to Baton from a Java service — a run of a task now, or an event — through the
 * console's public API with a tenant API key (Settings → API keys, role TENANT_ADMIN), as the Go
 * SDK's {@code baton.Client} and the Node SDK's {@code BatonClient} do:
 *
 * <pre>{@code
 * BatonClient baton = new BatonClient("http://baton-console:8080", System.getenv("BATON_API_KEY"));
 * TriggerResult run = baton.trigger(taskId, TriggerRequest.of(order).withIdempotencyKey("order-42"));
 * EmittedEvent event = baton.emitEvent(Event.of("order.paid", Map.of("order", order)).withIdempotencyKey("paid-42"));
 * CompletableFuture<TriggerResult> later = baton.submit(taskId, TriggerRequest.of(order)); // from any thread: sent together
 * }</pre>
 *
 * <p>{@link #submit} and {@link #emit} are how to send runs and events one at a time at any rate:
 * from any number of threads, each leaves at once when no request is in flight; while one is, those
 * submitted meanwhile wait and leave together in the next {@code POST /api/runs/batch}
 * ({@code POST /api/events}), each still answered, or refused, on its own (SendTogether).
 * {@link #submitBatch} and {@link #emitEvents} send many in one request.
 *
 * <p>Requests go over the JDK's {@link HttpClient} (HTTP/1.1, keep-alive connections). A 429 or
 * 503 — the console did nothing — is sent again after its {@code Retry-After} (or 100 ms, doubling
 * each time, without one), {@link #withRetries retries} times, each wait at most
 * {@link #withMaxRetryWait maxRetryWait}. A request that got no answer (reset, timeout) is sent
 * again only when it carries an idempotency key: it then cannot make a second run or event. One
 * whose connection could not be opened reached no console and always is — at once to the next
 * console when {@code baseUrl} names several (comma separated: a cluster's consoles or nodes),
 * where the client then stays. Any other answer of 400 or more (a proxy's 502 or 504 too: the console may have acted
 * on the request) is a {@link BatonApiException} at once, naming the fields at fault.
 *
 * <p>A client is immutable and safe to share between threads; the {@code with…} methods answer a
 * copy on the same connections.
 */
public final class BatonClient {
  /** The client's one ObjectMapper (thread-safe once configured). */
  static final ObjectMapper MAPPER = new ObjectMapper();
  /** An answer longer than this is cut (a console's answers are a few KB; a proxy's page could be anything). */
  private static final int MAX_ANSWER_BYTES = 16 << 20;

  /** The consoles requests go to, and which of them (shared with the {@code with…} copies). */
  private final Consoles consoles;
  private final String apiKey;
  private final HttpClient http;
  private final int retries;
  private final Duration maxRetryWait;
  private final Duration timeout;
  private final Pause pause;
  private final int maxWaiting;
  /** Where {@link #submit} and {@link #emit} gather their items: this instance's own (a {@code with…} copy has its own). */
  private volatile SendTogether<BatchRun, BatchResult> runLane;
  private volatile SendTogether<Event, EventResult> eventLane;

  /**
   * A client of the console at {@code baseUrl} (http or https, e.g. {@code http://baton-console:8080};
   * or a cluster's consoles, comma separated: {@code http://node-a:8080,http://node-b:8080}) with a
   * tenant API key. Defaults: 3 retries, each wait at most 5 s, 30 s a request.
   *
   * @throws IllegalArgumentException naming {@code baseUrl} or {@code apiKey} when it is missing or malformed
   */
  public BatonClient(String baseUrl, String apiKey) {
    // HTTP/1.1: the JDK's default, HTTP/2, would ask a plain-http console to upgrade on every new connection, for nothing.
    this(new Consoles(checkedBases(baseUrl)), checkedKey(apiKey), HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(), 3, Duration.ofSeconds(5), Duration.ofSeconds(30), Pause.SLEEP, 20_000);
  }

  private BatonClient(Consoles consoles, String apiKey, HttpClient http, int retries, Duration maxRetryWait, Duration timeout, Pause pause, int maxWaiting) {
    this.consoles = consoles;
    this.apiKey = apiKey;
    this.http = http;
    this.retries = retries;
    this.maxRetryWait = maxRetryWait;
    this.timeout = timeout;
    this.pause = pause;
    this.maxWaiting = maxWaiting;
  }

  /** How often a refused (429, 503) or unanswered resendable request is sent again (default 3; 0: never). */
  public BatonClient withRetries(int retries) {
    if (retries < 0) throw new IllegalArgumentException("retries: must be 0 or more, not " + retries);
    return new BatonClient(consoles, apiKey, http, retries, maxRetryWait, timeout, pause, maxWaiting);
  }

  /** The longest wait before sending again, whatever {@code Retry-After} says (default 5 s). */
  public BatonClient withMaxRetryWait(Duration maxRetryWait) {
    if (maxRetryWait == null || maxRetryWait.isNegative()) throw new IllegalArgumentException("maxRetryWait: must be zero or more, not " + maxRetryWait);
    return new BatonClient(consoles, apiKey, http, retries, maxRetryWait, timeout, pause, maxWaiting);
  }

  /** How long one request may take, connecting included, before it counts as unanswered (default 30 s). */
  public BatonClient withTimeout(Duration timeout) {
    if (timeout == null || timeout.isNegative() || timeout.isZero()) throw new IllegalArgumentException("timeout: must be positive, not " + timeout);
    return new BatonClient(consoles, apiKey, http, retries, maxRetryWait, timeout, pause, maxWaiting);
  }

  /** How many runs (events) {@link #submit} ({@link #emit}) lets wait to be sent; past it they fail at once with 429 CLIENT_BACKLOG (default 20,000). */
  public BatonClient withMaxWaiting(int maxWaiting) {
    if (maxWaiting < 1) throw new IllegalArgumentException("maxWaiting: must be 1 or more, not " + maxWaiting);
    return new BatonClient(consoles, apiKey, http, retries, maxRetryWait, timeout, pause, maxWaiting);
  }

  /** The same client waiting through {@code pause} before sending again (tests record the waits instead of sleeping them). */
  BatonClient withPause(Pause pause) {
    return new BatonClient(consoles, apiKey, http, retries, maxRetryWait, timeout, pause, maxWaiting);
  }

  /**
   * Asks for a run of the task now ({@code POST /api/tasks/{id}/trigger}): the run made
   * ({@code created} true, 201), or — its idempotency key used before for the task — the run the
   * key made ({@code created} false, 200).
   *
   * @throws BatonApiException the console's refusal (400 naming {@code params…} or {@code idempotencyKey}, 404 no such task, …), or no answer
   * @throws IllegalArgumentException the params are not JSON-serialisable
   * @throws UncheckedIOException a 2xx answer that is not the run's JSON
   * @throws InterruptedException interrupted while sending or waiting to send again
   */
  public TriggerResult trigger(long taskId, TriggerRequest run) throws InterruptedException {
    ObjectNode body = MAPPER.createObjectNode();
    if (run.params() != null) body.set("params", json("params", run.params()));
    if (run.flowParams() != null) body.set("flowParams", json("flowParams", run.flowParams()));
    Answer answer = post("/api/tasks/" + taskId + "/trigger", body, run.idempotencyKey(), run.idempotencyKey() != null);
    return new TriggerResult(SubmittedRun.from(answer.body), answer.status == 201);
  }

  /**
   * Sends one event ({@code POST /api/events}): the event stored, the runs it started and the
   * matched tasks whose run could not be made; with an idempotency key used before, the first
   * event sent under it ({@code created} false), and nothing is started again.
   *
   * @throws BatonApiException the console's refusal (400 naming {@code name}, {@code payload} or {@code idempotencyKey}, …), or no answer
   * @throws IllegalArgumentException the payload is not JSON-serialisable
   * @throws UncheckedIOException a 2xx answer that is not the event's JSON
   * @throws InterruptedException interrupted while sending or waiting to send again
   */
  public EmittedEvent emitEvent(Event event) throws InterruptedException {
    return EmittedEvent.from(post("/api/events", eventJson(event), null, event.idempotencyKey() != null).body);
  }

  /** Most runs one {@link #submitBatch} takes, and events one {@link #emitEvents} takes (the console's bounds). */
  public static final int MAX_BATCH_RUNS = 1_000;
  public static final int MAX_BATCH_EVENTS = 500;

  /**
   * Asks for up to {@link #MAX_BATCH_RUNS} runs, of one task or several, in one request
   * ({@code POST /api/runs/batch}): each run's result, in order. {@code atomic}: all are made, or
   * none and a {@link BatonApiException} naming every refused run. A batch that got no answer is
   * sent again only when every run carries an idempotency key.
   *
   * @throws BatonApiException the console's refusal of the whole request (400 for its shape, 401, …), or no answer
   * @throws InterruptedException interrupted while sending or waiting to send again
   */
  public List<BatchResult> submitBatch(List<BatchRun> runs, boolean atomic) throws InterruptedException {
    ObjectNode body = MAPPER.createObjectNode();
    boolean resendable = true;
    var items = body.putArray("runs");
    for (BatchRun r : runs) {
      items.add(runJson(r));
      resendable &= r.run().idempotencyKey() != null;
    }
    if (atomic) body.put("atomic", true);
    List<BatchResult> results = new ArrayList<>();
    for (JsonNode r : post("/api/runs/batch", body, null, resendable).body.path("results")) {
      int status = r.path("status").asInt();
      results.add(new BatchResult(status, r.hasNonNull("run") ? SubmittedRun.from(r.path("run")) : null, itemRefusal(status, r.path("error"))));
    }
    return List.copyOf(results);
  }

  /**
   * Sends up to {@link #MAX_BATCH_EVENTS} events in one request ({@code POST /api/events}): each
   * one's result, in order (a refused one is its own 400). Sent again after no answer only when
   * every event carries an idempotency key.
   *
   * @throws BatonApiException the console's refusal of the whole request, or no answer
   * @throws InterruptedException interrupted while sending or waiting to send again
   */
  public List<EventResult> emitEvents(List<Event> events) throws InterruptedException {
    ObjectNode body = MAPPER.createObjectNode();
    boolean resendable = true;
    var items = body.putArray("events");
    for (Event e : events) {
      items.add(eventJson(e));
      resendable &= e.idempotencyKey() != null;
    }
    List<EventResult> results = new ArrayList<>();
    for (JsonNode r : post("/api/events", body, null, resendable).body.path("results")) {
      int status = r.path("status").asInt();
      results.add(new EventResult(status, r.hasNonNull("event") ? EmittedEvent.from(r.path("event")) : null, itemRefusal(status, r.path("error"))));
    }
    return List.copyOf(results);
  }

  /**
   * Asks for a run of the task now, as {@link #trigger} does, sent together with the runs other
   * threads submit meanwhile (see the class comment): the future completes with the run made
   * ({@code created} false: the run its idempotency key made before), or fails with a
   * {@link BatonApiException} naming its own fields ({@code params.width}), as a trigger's would;
   * at once with 429 CLIENT_BACKLOG past {@link #withMaxWaiting maxWaiting} runs waiting. Once
   * submitted, a run may be made even if its future is cancelled.
   *
   * @throws IllegalArgumentException the params are not JSON-serialisable (nothing is sent)
   */
  public CompletableFuture<TriggerResult> submit(long taskId, TriggerRequest run) {
    SendTogether<BatchRun, BatchResult> lane = runLane;
    if (lane == null) {
      synchronized (this) {
        if (runLane == null) runLane = new SendTogether<>(runs -> submitBatch(runs, false), MAX_BATCH_RUNS, e -> new BatchResult(e.status(), null, e), "runs");
        lane = runLane;
      }
    }
    BatchRun item = BatchRun.of(taskId, run);
    int bytes = runJson(item).toString().getBytes(StandardCharsets.UTF_8).length; // params not JSON: thrown here, to this caller alone
    return lane.push(item, bytes, maxWaiting).thenApply(r -> {
      if (r.run() == null) throw itemError(r.status(), r.refusal(), "runs");
      return new TriggerResult(r.run(), r.status() == 201);
    });
  }

  /** Sends an event, as {@link #emitEvent} does, together with the events other threads emit meanwhile (as {@link #submit} sends runs). */
  public CompletableFuture<EmittedEvent> emit(Event event) {
    SendTogether<Event, EventResult> lane = eventLane;
    if (lane == null) {
      synchronized (this) {
        if (eventLane == null) eventLane = new SendTogether<>(this::emitEvents, MAX_BATCH_EVENTS, e -> new EventResult(e.status(), null, e), "events");
        lane = eventLane;
      }
    }
    int bytes = eventJson(event).toString().getBytes(StandardCharsets.UTF_8).length; // a payload not JSON: thrown here, to this caller alone
    return lane.push(event, bytes, maxWaiting).thenApply(r -> {
      if (r.event() == null) throw itemError(r.status(), r.refusal(), "events");
      return r.event();
    });
  }

  private static ObjectNode runJson(BatchRun r) {
    ObjectNode run = MAPPER.createObjectNode();
    run.put("taskId", r.taskId());
    if (r.run().params() != null) run.set("params", json("params", r.run().params()));
    if (r.run().flowParams() != null) run.set("flowParams", json("flowParams", r.run().flowParams()));
    if (r.run().idempotencyKey() != null) run.put("idempotencyKey", r.run().idempotencyKey());
    return run;
  }

  private static ObjectNode eventJson(Event event) {
    ObjectNode body = MAPPER.createObjectNode();
    body.put("name", event.name());
    if (event.payload() != null) body.set("payload", json("payload", event.payload()));
    if (event.idempotencyKey() != null) body.put("idempotencyKey", event.idempotencyKey());
    return body;
  }

  /** A refused item's error in a batch answer as an exception (null when the item was not refused). */
  private static BatonApiException itemRefusal(int status, JsonNode error) {
    if (error.isMissingNode() || error.isNull()) return null;
    return new BatonApiException(status, error.path("code").asText("HTTP_" + status), error.path("message").asText(""), FieldError.listOf(error.path("errors")), Duration.ZERO);
  }

  /** An item's refusal as its submitter's error: the fields named as the submitter knows them ({@code params.width}, not {@code runs[3].params.width}). */
  private static BatonApiException itemError(int status, BatonApiException refusal, String batchField) {
    if (refusal == null) return new BatonApiException(status, "HTTP_" + status, "HTTP " + status, List.of(), Duration.ZERO);
    Pattern prefix = Pattern.compile("^" + batchField + "\\[\\d+\\]\\.");
    List<FieldError> errors = refusal.errors().stream().map(e -> new FieldError(prefix.matcher(e.field()).replaceFirst(""), e.reason())).toList();
    return new BatonApiException(refusal.status(), refusal.code(), refusal.message(), errors, refusal.retryAfter());
  }

  /** A 2xx answer: its status and JSON. */
  private record Answer(int status, JsonNode body) {}

  /** One exchange's status, body and {@code Retry-After} (read on a 429 or 503 only). */
  private record Exchange(int status, byte[] body, Duration retryAfter) {}

  /**
   * POSTs {@code body} (with an {@code Idempotency-Key} header when one is given), sending it again
   * as the class comment says; a refusal, or no answer, throws.
   */
  private Answer post(String path, ObjectNode body, String idempotencyHeader, boolean resendable) throws InterruptedException {
    byte[] payload = body.toString().getBytes(StandardCharsets.UTF_8); // a tree of plain JSON nodes: its text is its JSON
    int hops = 0;
    for (int attempt = 0; ; attempt++) {
      Duration wait;
      int at = consoles.current.get();
      try {
        Exchange x = exchange(consoles.bases.get(at), path, payload, idempotencyHeader);
        if (x.status < 400) return new Answer(x.status, parse(path, x.body));
        boolean busy = x.status == 429 || x.status == 503;
        if (!busy || attempt >= retries) throw BatonApiException.refusal(x.status, x.body, x.retryAfter);
        wait = x.retryAfter;
      } catch (ConnectException notConnected) {
        // It reached no console: the next one at once (unless another request moved on already), once round them.
        consoles.current.compareAndSet(at, (at + 1) % consoles.bases.size());
        if (++hops < consoles.bases.size()) {
          attempt--;
          continue;
        }
        if (attempt >= retries) throw BatonApiException.unreachable("POST " + path, notConnected);
        wait = Duration.ZERO;
      } catch (IOException noAnswer) {
        if (!resendable || attempt >= retries) throw BatonApiException.unreachable("POST " + path, noAnswer);
        wait = Duration.ZERO;
      }
      hops = 0;
      if (wait.isZero()) wait = Duration.ofMillis(100L << Math.min(attempt, 20));
      pause.pause(wait.compareTo(maxRetryWait) > 0 ? maxRetryWait : wait);
    }
  }

  private Exchange exchange(String base, String path, byte[] payload, String idempotencyHeader) throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
        .timeout(timeout)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json")
        .header("X-API-Key", apiKey)
        .POST(HttpRequest.BodyPublishers.ofByteArray(payload));
    if (idempotencyHeader != null) request.header("Idempotency-Key", idempotencyHeader);
    HttpResponse<InputStream> res = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    byte[] answer;
    try (InputStream in = res.body()) {
      answer = in.readNBytes(MAX_ANSWER_BYTES);
    }
    int status = res.statusCode();
    Duration retryAfter = status == 429 || status == 503 ? RetryAfter.of(res.headers().firstValue("Retry-After").orElse(null)) : Duration.ZERO;
    return new Exchange(status, answer, retryAfter);
  }

  private static JsonNode parse(String path, byte[] answer) {
    try {
      return MAPPER.readTree(answer);
    } catch (IOException e) {
      throw new UncheckedIOException("POST " + path + ": the console's answer is not the expected JSON", e);
    }
  }

  private static JsonNode json(String field, Object value) {
    try {
      return MAPPER.valueToTree(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(field + ": not JSON-serialisable: " + e.getMessage(), e);
    }
  }

  /** The consoles of a client and its copies, and the one requests go to (an index into {@code bases}). */
  private static final class Consoles {
    final List<String> bases;
    final AtomicInteger current = new AtomicInteger();

    Consoles(List<String> bases) {
      this.bases = bases;
    }
  }

  private static List<String> checkedBases(String baseUrl) {
    if (baseUrl == null || baseUrl.isBlank()) throw new IllegalArgumentException("baseUrl: the console's URL is needed (http or https)");
    List<String> bases = new ArrayList<>();
    for (String one : baseUrl.split(",")) {
      String trimmed = one.strip().replaceAll("/+$", "");
      try {
        URI uri = new URI(trimmed);
        boolean http = "http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme());
        if (!http || uri.getHost() == null || uri.getRawQuery() != null || uri.getRawFragment() != null) throw new URISyntaxException(one, "not an http(s) URL with a host");
      } catch (URISyntaxException e) {
        throw new IllegalArgumentException("baseUrl: \"" + one.strip() + "\" is not an http(s) URL of the console", e);
      }
      bases.add(trimmed);
    }
    return List.copyOf(bases);
  }

  private static String checkedKey(String apiKey) {
    if (apiKey == null || apiKey.isBlank()) throw new IllegalArgumentException("apiKey: an API key is needed (Settings → API keys, role TENANT_ADMIN)");
    return apiKey;
  }
}
