package dev.baton.executor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.Test;

public class DispatchChecksTest {
  private static ObjectNode request() {
    return (ObjectNode) Json.parse("""
        {"runId": 7, "attempt": 1, "tenantId": "acme", "taskId": 3, "taskName": "t", "handler": "noop", "params": null,
         "scheduledAt": 1, "deadline": 2, "callbackUrls": ["http://127.0.0.1:8090"]}""");
  }

  private static String field(ObjectNode body) {
    DispatchChecks.Problem p = DispatchChecks.checkDispatch(body);
    return p == null ? null : p.field();
  }

  @Test
  public void acceptsAWellFormedRequestAndReadsItsDefaults() {
    assertNull(field(request()));
    DispatchRequest r = DispatchRequest.of(request().put("runId", 7.0));
    assertEquals(7, r.runId());
    assertEquals(0, r.shardIndex());
    assertEquals(1, r.shardTotal());
    assertEquals(0, r.startInMs());
    assertEquals(1500, DispatchRequest.of(request().put("startInMs", 1500)).startInMs());
    assertEquals(true, r.flowParams().isNull());
    assertNull(r.traceparent());
  }

  /** Its deadline on this executor's clock: the arrival + deadlineInMs (rounded up), or the engine's deadline without it. */
  @Test
  public void countsTheDeadlineFromTheArrival() {
    assertEquals(2, DispatchRequest.of(request()).localDeadline(1_000));
    assertEquals(1_000, DispatchRequest.of(request().put("deadlineInMs", 0)).localDeadline(1_000));
    assertEquals(1_002, DispatchRequest.of(request().put("deadlineInMs", 1.5)).localDeadline(1_000));
    assertEquals(61_000, DispatchRequest.of(request().put("deadlineInMs", 60_000)).localDeadline(1_000));
  }

  @Test
  public void keepsAWellFormedTraceparentAndDropsAnotherWithoutRefusingTheRun() {
    String tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    assertEquals(tp, DispatchRequest.of(request().put("traceparent", tp)).traceparent());
    assertNull(field(request().put("traceparent", "00-nope-01")));
    assertNull(DispatchRequest.of(request().put("traceparent", "00-nope-01")).traceparent());
    assertNull(DispatchRequest.of(request().put("traceparent", 7)).traceparent());
  }

  @Test
  public void namesTheFirstWrongField() {
    assertEquals("runId", field(request().put("runId", "seven")));
    assertEquals("runId", field(request().put("runId", 1.5)));
    assertEquals("attempt", field(request().put("attempt", 0)));
    assertEquals("deadline", field(request().put("deadline", "soon")));
    assertEquals("handler", field(request().put("handler", "")));
    assertEquals("params", field((ObjectNode) request().without("params")));
    assertEquals("callbackUrls[0]", field((ObjectNode) request().set("callbackUrls", Json.parse("[\"ftp://x\"]"))));
    assertEquals("shardTotal", field(request().put("shardIndex", 1)));
    assertEquals("shardIndex", field(request().put("shardIndex", 3).put("shardTotal", 3)));
    assertEquals("shardIndex", field(request().put("shardIndex", -1).put("shardTotal", 3)));
    assertEquals("shardTotal", field(request().put("shardIndex", 0).put("shardTotal", 0)));
    assertEquals("startInMs", field(request().put("startInMs", -1)));
    assertEquals("startInMs", field(request().put("startInMs", 1.5)));
    assertEquals("startInMs", field(request().put("startInMs", "10")));
    assertEquals("startInMs", field(request().put("startInMs", 60_001)));
    assertEquals("startInMs", field(request().putNull("startInMs")));
    assertNull(field(request().put("startInMs", 0)));
    assertNull(field(request().put("startInMs", 60_000)));
    assertEquals("deadlineInMs", field(request().put("deadlineInMs", -1)));
    assertEquals("deadlineInMs", field(request().put("deadlineInMs", "10")));
    assertEquals("deadlineInMs", field(request().put("deadlineInMs", true)));
    assertEquals("deadlineInMs", field(request().putNull("deadlineInMs")));
    assertEquals("deadlineInMs", field((ObjectNode) Json.parse(request().toString().replaceFirst("}$", ",\"deadlineInMs\":1e999}"))));
    assertNull(field(request().put("deadlineInMs", 0)));
    assertNull(field(request().put("deadlineInMs", 1.5)));
    assertEquals("body", field((ObjectNode) null));
  }

  @Test
  public void checksAnAbortAgainstItsPath() {
    assertNull(DispatchChecks.checkAbort(Json.parse("{\"runId\":7,\"attempt\":1,\"reason\":\"CANCELLED\"}"), 7));
    assertEquals("runId", DispatchChecks.checkAbort(Json.parse("{\"runId\":8,\"attempt\":1,\"reason\":\"CANCELLED\"}"), 7).field());
    assertEquals("reason", DispatchChecks.checkAbort(Json.parse("{\"runId\":7,\"attempt\":1,\"reason\":\"SHUTDOWN\"}"), 7).field());
  }
}
