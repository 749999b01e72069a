package dev.baton.examples;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.executor.BatonHandler;
import dev.baton.executor.NonRetryableException;
import dev.baton.executor.RunContext;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The demo handlers of apps/demo-executor, in Java: the demo tenant's tasks (`npm run cluster`,
 * `npm start`) run on them, and the protocol conformance suite checks them.
 */
public class DemoHandlers {
  private static long num(JsonNode params, String key, long fallback) {
    JsonNode v = params.path(key);
    return v.isNumber() && v.asDouble() >= 0 ? v.asLong() : fallback;
  }

  @BatonHandler("noop")
  public Object noop(RunContext ctx) {
    return Map.of("ok", true);
  }

  @BatonHandler(value = "sleep", paramsSchema = """
      {"type": "object", "additionalProperties": false,
       "properties": {"ms": {"type": "integer", "minimum": 0, "maximum": 3600000, "description": "How long to sleep, in milliseconds (default 1000)"}}}""")
  public Object sleep(RunContext ctx) {
    long ms = num(ctx.params(), "ms", 1000);
    ctx.sleep(ms);
    return Map.of("sleptMs", ms);
  }

  /** Fails while the attempt is at most params.failures (default 1), then succeeds; with params.nonRetryable, without retries. */
  @BatonHandler("fail-n-times")
  public Object failNTimes(RunContext ctx) {
    long failures = num(ctx.params(), "failures", 1);
    String message = "planned failure on attempt " + ctx.attempt() + " (fails " + failures + " time(s))";
    if (ctx.attempt() <= failures && ctx.params().path("nonRetryable").asBoolean(false)) throw new NonRetryableException(message);
    if (ctx.attempt() <= failures) throw new IllegalStateException(message);
    return Map.of("succeededOnAttempt", ctx.attempt());
  }

  /** params.ms (default 10 000) in ten steps, progress and a log line each. */
  @BatonHandler("long-running")
  public Object longRunning(RunContext ctx) {
    long ms = num(ctx.params(), "ms", 10_000);
    for (int step = 1; step <= 10; step++) {
      ctx.sleep(ms / 10);
      ctx.progress(step * 10);
      ctx.log().info("step %d/10 done", step);
    }
    return Map.of("ms", ms);
  }

  /** params.ms (default 1000) of busy loop, checking for an abort every slice. */
  @BatonHandler("cpu-burn")
  public Object cpuBurn(RunContext ctx) {
    long ms = num(ctx.params(), "ms", 1000);
    long sliceMs = Math.max(1, num(ctx.params(), "sliceMs", 10));
    long started = System.currentTimeMillis();
    long x = 0;
    int slices = 0;
    while (System.currentTimeMillis() - started < ms) {
      ctx.throwIfAborted();
      long end = Math.min(started + ms, System.currentTimeMillis() + sliceMs);
      while (System.currentTimeMillis() < end) x = (x * 31 + 7) % 1_000_003;
      slices++;
    }
    return Map.of("burnedMs", System.currentTimeMillis() - started, "slices", slices, "checksum", x);
  }

  /** params.count (default 1) business alarms of params.severity (WARNING), then params.ms of sleep. */
  @BatonHandler("alarm")
  public Object alarm(RunContext ctx) {
    JsonNode p = ctx.params();
    String severity = p.path("severity").asText("WARNING");
    if (!severity.equals("INFO") && !severity.equals("CRITICAL")) severity = "WARNING";
    String message = p.path("message").isTextual() ? p.get("message").asText() : "demo alarm";
    long count = Math.max(1, num(p, "count", 1));
    for (int i = 1; i <= count; i++) ctx.alarm(severity, count > 1 ? message + " #" + i : message, p.get("data"));
    long ms = num(p, "ms", 0);
    if (ms > 0) ctx.sleep(ms);
    return Map.of("alarms", count);
  }

  @BatonHandler("record")
  public Object record(RunContext ctx) {
    return Map.of("recorded", true, "runId", ctx.runId(), "attempt", ctx.attempt());
  }

  /**
   * One shard's part of a BROADCAST or SHARDED run: the items i < params.items (default 100) with
   * i % shardTotal == shardIndex, after params.ms; shard params.failShard fails while the attempt
   * is at most params.failures (default 1).
   */
  @BatonHandler(value = "shard-part", paramsSchema = """
      {"type": "object", "additionalProperties": false, "properties": {
        "items": {"type": "integer", "minimum": 0, "description": "Items to share out (default 100)"},
        "ms": {"type": "integer", "minimum": 0, "description": "Work time per shard, in milliseconds (default 0)"},
        "failShard": {"type": "integer", "minimum": 0, "description": "This shard fails…"},
        "failures": {"type": "integer", "minimum": 0, "description": "…while its attempt is at most this (default 1)"}}}""")
  public Object shardPart(RunContext ctx) {
    long items = num(ctx.params(), "items", 100);
    long ms = num(ctx.params(), "ms", 0);
    if (ms > 0) ctx.sleep(ms);
    JsonNode failShard = ctx.params().path("failShard");
    if (failShard.isNumber() && failShard.asInt() == ctx.shardIndex() && ctx.attempt() <= num(ctx.params(), "failures", 1)) {
      throw new IllegalStateException("planned failure of shard " + ctx.shardIndex() + " on attempt " + ctx.attempt());
    }
    long mine = 0;
    for (long item = ctx.shardIndex(); item < items; item += ctx.shardTotal()) mine++;
    ctx.log().info("shard %d of %d: %d of %d items", ctx.shardIndex(), ctx.shardTotal(), mine, items);
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("shardIndex", ctx.shardIndex());
    result.put("shardTotal", ctx.shardTotal());
    result.put("items", mine);
    return result;
  }
}
