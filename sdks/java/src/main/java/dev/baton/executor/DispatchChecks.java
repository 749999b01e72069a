package dev.baton.executor;

import com.fasterxml.jackson.databind.JsonNode;

/** The shape checks of engine requests (the Node SDK's validate.ts): null when fine, else the first wrong field and why. */
final class DispatchChecks {
  private static final double MAX_SAFE_INTEGER = 9007199254740991d;
  /** The longest {@code startInMs} (protocol 2): engines never send a run further ahead than this. */
  static final int MAX_START_IN_MS = 60_000;

  record Problem(String field, String message) {
    static Problem of(String field, String why) {
      return new Problem(field, field + ": " + why);
    }
  }

  private DispatchChecks() {}

  static Problem checkDispatch(JsonNode body) {
    if (body == null || !body.isObject()) return Problem.of("body", "must be a JSON object");
    String[] ints = {"runId", "attempt", "taskId", "scheduledAt", "deadline"};
    int[] mins = {1, 1, 0, 0, 0};
    for (int i = 0; i < ints.length; i++) {
      String why = intField(body, ints[i], mins[i]);
      if (why != null) return Problem.of(ints[i], why);
    }
    for (String field : new String[] {"tenantId", "taskName", "handler"}) {
      JsonNode v = body.get(field);
      if (v == null) return Problem.of(field, "is required");
      if (!v.isTextual()) return Problem.of(field, "must be a string");
      if (!field.equals("taskName") && v.asText().isEmpty()) return Problem.of(field, "must not be empty");
    }
    if (!body.has("params")) return Problem.of("params", "is required (null when the task has none)");
    JsonNode urls = body.get("callbackUrls");
    if (urls == null) return Problem.of("callbackUrls", "is required (an array of engine base URLs, may be empty)");
    if (!urls.isArray()) return Problem.of("callbackUrls", "must be an array of URLs");
    for (int i = 0; i < urls.size(); i++) {
      if (!isHttpUrl(urls.get(i))) return Problem.of("callbackUrls[" + i + "]", "must be an http(s) URL (got " + urls.get(i) + ")");
    }
    if (body.has("parentResults") && !body.get("parentResults").isObject()) return Problem.of("parentResults", "must be an object of results by parent task name");
    if (body.has("shardIndex") || body.has("shardTotal")) {
      // A shard is told both; one without the other is a malformed request, not a default.
      String total = intField(body, "shardTotal", 1);
      if (total != null) return Problem.of("shardTotal", total);
      String index = intField(body, "shardIndex", 0);
      if (index != null) return Problem.of("shardIndex", index);
      if (body.get("shardIndex").asLong() >= body.get("shardTotal").asLong()) return Problem.of("shardIndex", "must be below shardTotal (" + body.get("shardTotal").asLong() + ")");
    }
    if (body.has("deadlineInMs")) {
      JsonNode v = body.get("deadlineInMs");
      if (!v.isNumber() || !Double.isFinite(v.asDouble()) || v.asDouble() < 0) return Problem.of("deadlineInMs", "must be a finite number ≥ 0 (got " + v + ")");
    }
    if (body.has("startInMs")) {
      String why = intField(body, "startInMs", 0);
      if (why != null) return Problem.of("startInMs", why);
      if (body.get("startInMs").asLong() > MAX_START_IN_MS) return Problem.of("startInMs", "must be ≤ " + MAX_START_IN_MS + " (got " + body.get("startInMs").asLong() + ")");
    }
    return null;
  }

  static Problem checkAbort(JsonNode body, long pathRunId) {
    if (body == null || !body.isObject()) return Problem.of("body", "must be a JSON object");
    for (String field : new String[] {"runId", "attempt"}) {
      String why = intField(body, field, 1);
      if (why != null) return Problem.of(field, why);
    }
    if (body.get("runId").asLong() != pathRunId) return Problem.of("runId", "must match the run id of the path (" + pathRunId + ")");
    JsonNode reason = body.get("reason");
    boolean known = false;
    if (reason != null && reason.isTextual()) {
      for (AbortReason r : AbortReason.values()) known |= r.fromEngine() && r.name().equals(reason.asText());
    }
    if (!known) return Problem.of("reason", "must be one of TIMEOUT, CANCELLED, REPLACED");
    return null;
  }

  private static String intField(JsonNode body, String field, long min) {
    JsonNode v = body.get(field);
    if (v == null) return "is required";
    if (!isSafeInteger(v)) return "must be an integer (got " + v + ")";
    if (v.asLong() < min) return "must be ≥ " + min + " (got " + v.asLong() + ")";
    return null;
  }

  /** As JavaScript's Number.isSafeInteger: 3 and 3.0 are, 3.5 and 2^53 are not. */
  static boolean isSafeInteger(JsonNode v) {
    if (v == null || !v.isNumber()) return false;
    double d = v.asDouble();
    return d == Math.rint(d) && Math.abs(d) <= MAX_SAFE_INTEGER && (v.isIntegralNumber() ? v.canConvertToLong() : true);
  }

  private static boolean isHttpUrl(JsonNode v) {
    return v != null && v.isTextual() && ExecutorOptions.isHttpUrl(v.asText());
  }
}
