package dev.baton.executor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One attempt of a run, as an engine dispatches it (DispatchRequest of libs/protocol/openapi.yaml), after DispatchChecks. */
record DispatchRequest(
    long runId,
    int attempt,
    String tenantId,
    long taskId,
    String taskName,
    String handler,
    JsonNode params,
    long scheduledAt,
    long deadline,
    Double deadlineInMs,
    List<String> callbackUrls,
    Map<String, JsonNode> parentResults,
    JsonNode flowParams,
    int shardIndex,
    int shardTotal,
    int startInMs,
    String traceparent) {

  /** A W3C traceparent of version 00, what the engines send; another value is dropped (a trace hint never refuses a run). */
  private static final java.util.regex.Pattern TRACEPARENT = java.util.regex.Pattern.compile("00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");

  /** From a body DispatchChecks accepted. */
  static DispatchRequest of(JsonNode body) {
    List<String> urls = new ArrayList<>();
    body.get("callbackUrls").forEach(u -> urls.add(ExecutorOptions.withoutTrailingSlashes(u.asText())));
    Map<String, JsonNode> parents = new LinkedHashMap<>();
    JsonNode p = body.get("parentResults");
    if (p != null && p.isObject()) p.fields().forEachRemaining(e -> parents.put(e.getKey(), e.getValue()));
    JsonNode flow = body.get("flowParams");
    return new DispatchRequest(
        body.get("runId").asLong(),
        body.get("attempt").asInt(),
        body.get("tenantId").asText(),
        body.get("taskId").asLong(),
        body.get("taskName").asText(),
        body.get("handler").asText(),
        body.get("params"),
        body.get("scheduledAt").asLong(),
        body.get("deadline").asLong(),
        body.has("deadlineInMs") ? body.get("deadlineInMs").asDouble() : null,
        Collections.unmodifiableList(urls),
        Collections.unmodifiableMap(parents),
        flow == null ? NullNode.getInstance() : flow,
        body.has("shardIndex") ? body.get("shardIndex").asInt() : 0,
        body.has("shardTotal") ? body.get("shardTotal").asInt() : 1,
        body.has("startInMs") ? body.get("startInMs").asInt() : 0,
        traceparentOf(body.get("traceparent")));
  }

  private static String traceparentOf(JsonNode value) {
    return value != null && value.isTextual() && TRACEPARENT.matcher(value.asText()).matches() ? value.asText() : null;
  }

  /**
   * The run's deadline on this executor's clock (epoch ms): its request's arrival + {@code
   * deadlineInMs}, which the engine counted on its corrected time as the request left, rounded up
   * to the ms. Relative, so an executor whose clock is ahead of the engines' does not abort its
   * handlers early (the transit only makes it later). From an engine that sends no {@code
   * deadlineInMs} (an older one): {@code deadline}, read on this clock.
   */
  long localDeadline(long arrivedAt) {
    return deadlineInMs == null ? deadline : arrivedAt + (long) Math.ceil(deadlineInMs);
  }

  String key() {
    return runKey(runId, attempt);
  }

  static String runKey(long runId, int attempt) {
    return runId + ":" + attempt;
  }
}
