package dev.baton.http;

import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * Reads a {@code Retry-After} header, for the executor's calls to engines (EngineClient) and the
 * client's to the console (BatonClient) alike, as the Go SDK's retryAfterValue does.
 */
public final class RetryAfter {
  /** A longer wait is read as this: a wrong header must not park a request for hours. */
  public static final Duration MAX = Duration.ofMinutes(1);

  private RetryAfter() {}

  /** Delay-seconds or an HTTP date, at most {@link #MAX}; zero when absent or unreadable. */
  public static Duration of(String value) {
    if (value == null || value.isBlank()) return Duration.ZERO;
    Duration wait;
    try {
      wait = Duration.ofSeconds(Long.parseLong(value.trim()));
    } catch (NumberFormatException notSeconds) {
      try {
        wait = Duration.between(java.time.Instant.now(), ZonedDateTime.parse(value.trim(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
      } catch (DateTimeParseException notADate) {
        return Duration.ZERO;
      }
    }
    if (wait.isNegative()) return Duration.ZERO;
    return wait.compareTo(MAX) > 0 ? MAX : wait;
  }
}
