package dev.baton.executor;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What the SDK appends to its own log lines about a run the engines trace: the run's id and
 * attempt, and its {@code trace_id} and {@code span_id} (the engine's span the run was dispatched
 * under, which a handler's spans nest under), as key=value pairs with the Node SDK's field names,
 * so a log pipeline can join the line to the run's trace. Empty for an untraced run.
 */
final class TraceFields {
  private static final java.util.regex.Pattern TRACEPARENT = java.util.regex.Pattern.compile("00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}");

  private TraceFields() {}

  static String of(long runId, long attempt, String traceparent) {
    java.util.regex.Matcher ids = traceparent == null ? null : TRACEPARENT.matcher(traceparent);
    if (ids == null || !ids.matches()) return "";
    return " runId=" + runId + " attempt=" + attempt + " trace_id=" + ids.group(1) + " span_id=" + ids.group(2);
  }

  /** Of a callback as it is sent (its runId, attempt and traceparent). */
  static String of(JsonNode callback) {
    JsonNode tp = callback.get("traceparent");
    return of(callback.path("runId").asLong(), callback.path("attempt").asLong(), tp != null && tp.isTextual() ? tp.asText() : null);
  }
}
