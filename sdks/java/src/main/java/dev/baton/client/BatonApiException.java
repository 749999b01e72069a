package dev.baton.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The console refused a request, or did not answer it: {@link #status()} 0 when no answer came;
 * {@link #code()} the error body's stable code (VALIDATION_FAILED, NOT_FOUND, RATE_LIMITED,
 * UNAUTHORIZED, …, {@code HTTP_<status>} for an answer that is not Baton's error body, or
 * UNREACHABLE); {@link #message()} the console's words (for people: branch on the code);
 * {@link #errors()} the fields at fault; {@link #retryAfter()} the wait a 429 or 503 asked for
 * (zero when none, or for another status). {@link #getMessage()} says all of it in one line.
 */
public class BatonApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int status;
  private final String code;
  private final String message;
  private final List<FieldError> errors;
  private final Duration retryAfter;

  public BatonApiException(int status, String code, String message, List<FieldError> errors, Duration retryAfter) {
    super(describe(status, code, message, errors));
    this.status = status;
    this.code = code;
    this.message = message;
    this.errors = List.copyOf(errors);
    this.retryAfter = retryAfter;
  }

  /** No answer came (refused connection, reset, timeout): the request may or may not have been acted on. */
  static BatonApiException unreachable(String what, IOException cause) {
    BatonApiException e = new BatonApiException(0, "UNREACHABLE", what + ": " + cause, List.of(), Duration.ZERO);
    e.initCause(cause);
    return e;
  }

  /** The console's error body as an exception; an answer that is not one (a proxy's page) is the message as it came. */
  static BatonApiException refusal(int status, byte[] answer, Duration retryAfter) {
    String text = new String(answer, StandardCharsets.UTF_8).trim();
    JsonNode body;
    try {
      body = BatonClient.MAPPER.readTree(answer);
    } catch (IOException notJson) {
      body = null;
    }
    if (body == null || !body.isObject()) return new BatonApiException(status, "HTTP_" + status, text, List.of(), retryAfter);
    String message = body.path("message").isTextual() && !body.path("message").asText().isEmpty() ? body.path("message").asText() : text;
    String code = body.path("code").isTextual() && !body.path("code").asText().isEmpty() ? body.path("code").asText() : "HTTP_" + status;
    return new BatonApiException(status, code, message, FieldError.listOf(body.path("errors")), retryAfter);
  }

  /** The HTTP status; 0 when no answer came. */
  public int status() {
    return status;
  }

  public String code() {
    return code;
  }

  public String message() {
    return message;
  }

  public List<FieldError> errors() {
    return errors;
  }

  public Duration retryAfter() {
    return retryAfter;
  }

  private static String describe(int status, String code, String message, List<FieldError> errors) {
    String head = status + " " + code + ": " + message;
    if (errors.isEmpty()) return head;
    return head + " (" + errors.stream().map(e -> e.field() + " " + e.reason()).collect(Collectors.joining("; ")) + ")";
  }
}
