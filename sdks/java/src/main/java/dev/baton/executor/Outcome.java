package dev.baton.executor;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * The outcome fields of a final callback (the Node SDK's outcome.ts): ABORTED when the run was
 * aborted (whatever the handler did then; a result it still returned is kept), FAILED when it
 * threw (not retryable for a {@link NonRetryable}) or its result is not JSON or too big, else
 * SUCCEEDED.
 */
record Outcome(String outcome, JsonNode result, String error, boolean retryable) {
  private static final int MAX_ERROR_BYTES = 8192;

  static Outcome aborted(String error) {
    return new Outcome("ABORTED", null, error, true);
  }

  static Outcome of(Object returned, Throwable thrown, AbortReason abortReason, int maxResultBytes) {
    JsonNode result = null;
    if (thrown == null && returned != null) {
      try {
        byte[] bytes = Json.bytes(returned);
        if (bytes.length > maxResultBytes) {
          if (abortReason == null) return new Outcome("FAILED", null, "the handler's result is " + bytes.length + " bytes of JSON, more than maxResultBytes (" + maxResultBytes + ")", true);
        } else {
          result = Json.parse(bytes);
        }
      } catch (Exception e) {
        if (abortReason == null) return new Outcome("FAILED", null, "the handler's result is not JSON-serialisable: " + e.getMessage(), true);
      }
    }
    if (abortReason != null) {
      boolean ownCause = thrown != null && !(thrown instanceof RunAbortedException) && !(thrown instanceof InterruptedException);
      String error = abortReason.message + (ownCause ? "; the handler threw: " + errorText(thrown) : "");
      return new Outcome("ABORTED", result, Json.truncateUtf8(error, MAX_ERROR_BYTES), true);
    }
    if (thrown != null) return new Outcome("FAILED", null, Json.truncateUtf8(errorText(thrown), MAX_ERROR_BYTES), !(thrown instanceof NonRetryable));
    return new Outcome("SUCCEEDED", result, null, true);
  }

  /** The exception's stack trace: its first line {@code class: message} (what alarms show), the frames after it. */
  static String errorText(Throwable t) {
    StringWriter out = new StringWriter();
    t.printStackTrace(new PrintWriter(out));
    return out.toString().stripTrailing();
  }
}
