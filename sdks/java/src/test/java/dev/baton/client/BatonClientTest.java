package dev.baton.client;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.http.RetryAfter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

public class BatonClientTest {
  private static final String RUN = "{\"id\":7,\"taskId\":3,\"state\":\"PENDING\",\"createdAt\":1700000000000,\"params\":{\"a\":1}}";
  private static final String RATE_LIMITED = "{\"statusCode\":429,\"code\":\"RATE_LIMITED\",\"error\":\"Too Many Requests\",\"message\":\"busy\"}";

  private FakeConsole console;
  /** The waits the client asked for before sending again: recorded, not slept. */
  private final List<Duration> waits = new CopyOnWriteArrayList<>();
  private BatonClient client;

  @Before
  public void start() throws Exception {
    console = new FakeConsole();
    client = new BatonClient(console.url() + "/", "key-1").withPause(waits::add);
  }

  @After
  public void stop() {
    console.close();
  }

  @Test
  public void triggerAnswersTheRunAndWhetherItWasMadeNow() throws Exception {
    console.reply(201, RUN).reply(200, RUN);
    TriggerResult made = client.trigger(3, TriggerRequest.of(Map.of("a", 1)).withFlowParams(Map.of("batch", "b-1")).withIdempotencyKey("k-1"));
    assertEquals(new SubmittedRun(7, 3, "PENDING", 1700000000000L), made.run());
    assertTrue(made.created());
    assertFalse("200: the key's run, made before", client.trigger(3, TriggerRequest.of(null).withIdempotencyKey("k-1")).created());

    FakeConsole.Request first = console.requests.get(0);
    assertEquals("/api/tasks/3/trigger", first.path());
    assertEquals("key-1", first.apiKey());
    assertEquals("k-1", first.idempotencyKey());
    assertEquals("application/json", first.contentType());
    assertEquals(BatonClient.MAPPER.readTree("{\"params\":{\"a\":1},\"flowParams\":{\"batch\":\"b-1\"}}"), BatonClient.MAPPER.readTree(first.body()));
    assertEquals("no params: the task's", "{}", console.requests.get(1).body());
    assertTrue(waits.isEmpty());
  }

  @Test
  public void emitEventAnswersTheRunsItStartedAndTheOnesRefused() throws Exception {
    console.reply(201, "{\"id\":11,\"name\":\"order.paid\",\"payload\":{},\"runIds\":[5,6],\"created\":true,\"runs\":[],"
        + "\"refusedRuns\":[{\"taskId\":9,\"status\":400,\"error\":{\"statusCode\":400,\"code\":\"VALIDATION_FAILED\",\"message\":\"bad\",\"errors\":[{\"field\":\"tasks.9.params.width\",\"reason\":\"must be integer\"}]}}]}");
    EmittedEvent event = client.emitEvent(Event.of("order.paid", Map.of("order", Map.of("id", 42))).withIdempotencyKey("paid-42"));
    assertEquals(11, event.id());
    assertEquals("order.paid", event.name());
    assertEquals(List.of(5L, 6L), event.runIds());
    assertTrue(event.created());
    assertEquals(List.of(new RefusedRun(9, 400, "VALIDATION_FAILED", "bad", List.of(new FieldError("tasks.9.params.width", "must be integer")))), event.refusedRuns());

    FakeConsole.Request sent = console.requests.get(0);
    assertEquals("/api/events", sent.path());
    assertEquals("the key goes in the body", null, sent.idempotencyKey());
    JsonNode body = BatonClient.MAPPER.readTree(sent.body());
    assertEquals("paid-42", body.get("idempotencyKey").asText());
    assertEquals(42, body.at("/payload/order/id").asInt());
  }

  @Test
  public void aRefusalNamesItsFieldsAndIsNotSentAgain() throws Exception {
    console.reply(400, "{\"statusCode\":400,\"code\":\"VALIDATION_FAILED\",\"error\":\"Bad Request\",\"message\":\"idempotencyKey: 1 to 62 of A-Z a-z 0-9 - _ . : ~\","
        + "\"errors\":[{\"field\":\"idempotencyKey\",\"reason\":\"1 to 62 of A-Z a-z 0-9 - _ . : ~\"}]}");
    BatonApiException refused = assertThrows(BatonApiException.class, () -> client.trigger(3, TriggerRequest.of(null).withIdempotencyKey("not a key")));
    assertEquals(400, refused.status());
    assertEquals("VALIDATION_FAILED", refused.code());
    assertEquals("idempotencyKey: 1 to 62 of A-Z a-z 0-9 - _ . : ~", refused.message());
    assertEquals(List.of(new FieldError("idempotencyKey", "1 to 62 of A-Z a-z 0-9 - _ . : ~")), refused.errors());
    assertEquals(Duration.ZERO, refused.retryAfter());
    assertTrue(refused.getMessage(), refused.getMessage().startsWith("400 VALIDATION_FAILED: "));
    assertEquals(1, console.requests.size());
  }

  @Test
  public void aKeyedTriggerRefused429IsSentAgainAfterItsRetryAfter() throws Exception {
    console.reply(429, Map.of("Retry-After", "1"), RATE_LIMITED).reply(201, RUN);
    TriggerResult made = client.trigger(3, TriggerRequest.of(null).withIdempotencyKey("k-1"));
    assertEquals(7, made.run().id());
    assertEquals(List.of(Duration.ofSeconds(1)), waits);
    assertEquals(List.of("k-1", "k-1"), console.requests.stream().map(FakeConsole.Request::idempotencyKey).toList());
  }

  @Test
  public void anUnkeyedTriggerRefused429IsSentAgainToo_theConsoleMadeNothing() throws Exception {
    console.reply(429, Map.of("Retry-After", "0"), RATE_LIMITED).reply(503, "").reply(201, RUN);
    assertTrue(client.trigger(3, TriggerRequest.of(null)).created());
    assertEquals("no wait asked: 100 ms, doubling", List.of(Duration.ofMillis(100), Duration.ofMillis(200)), waits);
  }

  @Test
  public void anUnansweredTriggerIsSentAgainOnlyWithAnIdempotencyKey() throws Exception {
    console.hangUp();
    BatonApiException unanswered = assertThrows(BatonApiException.class, () -> client.trigger(3, TriggerRequest.of(Map.of("a", 1))));
    assertEquals(0, unanswered.status());
    assertEquals("UNREACHABLE", unanswered.code());
    assertEquals("the run may have been made: not sent again", 1, console.requests.size());

    console.hangUp().reply(201, RUN);
    assertTrue(client.trigger(3, TriggerRequest.of(Map.of("a", 1)).withIdempotencyKey("k-1")).created());
    assertEquals(3, console.requests.size());
    assertEquals(List.of(Duration.ofMillis(100)), waits);
  }

  @Test
  public void anUnansweredEventIsSentAgainOnlyWithAnIdempotencyKey() throws Exception {
    console.hangUp();
    assertThrows(BatonApiException.class, () -> client.emitEvent(Event.of("order.paid", null)));
    assertEquals(1, console.requests.size());

    console.hangUp().reply(201, "{\"id\":1,\"name\":\"order.paid\",\"runIds\":[],\"created\":true,\"refusedRuns\":[]}");
    assertEquals(1, client.emitEvent(Event.of("order.paid", null).withIdempotencyKey("paid-1")).id());
    assertEquals(3, console.requests.size());
  }

  @Test
  public void aProxysGatewayErrorIsNotSentAgain_theConsoleMayHaveActed() throws Exception {
    console.reply(502, "<html>Bad Gateway</html>").reply(504, "");
    BatonApiException bad = assertThrows(BatonApiException.class, () -> client.trigger(3, TriggerRequest.of(null).withIdempotencyKey("k-1")));
    assertEquals(502, bad.status());
    assertEquals("HTTP_502", bad.code());
    assertEquals("<html>Bad Gateway</html>", bad.message());
    assertEquals(504, assertThrows(BatonApiException.class, () -> client.emitEvent(Event.of("a", null).withIdempotencyKey("k-2"))).status());
    assertEquals(2, console.requests.size());
  }

  @Test
  public void afterItsRetriesTheRefusalIsThrownWithItsRetryAfter() throws Exception {
    for (int i = 0; i < 4; i++) console.reply(429, Map.of("Retry-After", "30"), RATE_LIMITED);
    BatonApiException busy = assertThrows(BatonApiException.class, () -> client.trigger(3, TriggerRequest.of(null)));
    assertEquals("RATE_LIMITED", busy.code());
    assertEquals(Duration.ofSeconds(30), busy.retryAfter());
    assertEquals("the first try and 3 retries", 4, console.requests.size());
    assertEquals("each wait at most maxRetryWait (5 s)", List.of(Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(5)), waits);

    console.reply(429, RATE_LIMITED).reply(429, RATE_LIMITED);
    assertThrows(BatonApiException.class, () -> client.withRetries(1).withMaxRetryWait(Duration.ofMillis(50)).trigger(3, TriggerRequest.of(null)));
    assertEquals(6, console.requests.size());
    assertEquals(Duration.ofMillis(50), waits.get(3));
  }

  @Test
  public void badArgumentsAreNamed() {
    for (String url : new String[] {null, "", "  ", "ftp://console:8080", "console:8080", "http://", "http://console:8080?x=1", "http://exa mple"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new BatonClient(url, "key"));
      assertTrue(url + ": " + e.getMessage(), e.getMessage().startsWith("baseUrl: "));
    }
    for (String key : new String[] {null, "", " "}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new BatonClient("http://console:8080", key));
      assertTrue(e.getMessage(), e.getMessage().startsWith("apiKey: "));
    }
    assertTrue(assertThrows(IllegalArgumentException.class, () -> client.withRetries(-1)).getMessage().startsWith("retries: "));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> client.withMaxRetryWait(Duration.ofSeconds(-1))).getMessage().startsWith("maxRetryWait: "));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> client.withTimeout(Duration.ZERO)).getMessage().startsWith("timeout: "));
    new BatonClient("https://baton.example.com/console/", "key"); // a path under which the API lives is fine
  }

  @Test
  public void retryAfterIsSecondsOrADateAtMostAMinute() {
    assertEquals(Duration.ofSeconds(2), RetryAfter.of(" 2 "));
    assertEquals(Duration.ZERO, RetryAfter.of(null));
    assertEquals(Duration.ZERO, RetryAfter.of("soon"));
    assertEquals(Duration.ZERO, RetryAfter.of("-3"));
    assertEquals(RetryAfter.MAX, RetryAfter.of("86400"));
    assertEquals(Duration.ZERO, RetryAfter.of("Wed, 21 Oct 2015 07:28:00 GMT"));
    assertEquals(RetryAfter.MAX, RetryAfter.of("Fri, 01 Jan 2100 00:00:00 GMT"));
  }

  /** A loopback URL nothing listens on (a console down). */
  private static String downUrl() throws Exception {
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return "http://127.0.0.1:" + socket.getLocalPort();
    }
  }

  @Test
  public void movesToTheNextConsoleWhenAConnectionCannotBeOpenedAndStaysThere() throws Exception {
    console.reply(201, RUN).reply(201, RUN);
    BatonClient cluster = new BatonClient(downUrl() + ", " + console.url(), "key-1").withPause(waits::add);
    // No idempotency key: sent again all the same, since the first console never got it.
    assertTrue(cluster.trigger(3, TriggerRequest.of(null)).created());
    assertTrue(cluster.withRetries(0).trigger(3, TriggerRequest.of(null)).created());
    assertEquals(2, console.requests.size());
    assertTrue("moved at once: no wait", waits.isEmpty());
  }

  @Test
  public void sendsARefusedConnectionAgainAfterAWaitWhenEveryConsoleRefusedIt() throws Exception {
    BatonClient down = new BatonClient(downUrl() + "," + downUrl(), "key-1").withPause(waits::add).withRetries(1);
    BatonApiException e = assertThrows(BatonApiException.class, () -> down.trigger(3, TriggerRequest.of(null)));
    assertEquals("UNREACHABLE", e.code());
    assertEquals(1, waits.size());
    assertTrue(assertThrows(IllegalArgumentException.class, () -> new BatonClient("http://a:1,ftp://b", "key")).getMessage().startsWith("baseUrl: \"ftp://b\""));
  }
}
