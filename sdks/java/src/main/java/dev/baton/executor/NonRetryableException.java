package dev.baton.executor;

/**
 * Throw it from a handler when trying again cannot help (a customer that does not exist, params
 * that can never work): the run ends FAILED at once, without spending the task's remaining
 * attempts (the final callback says {@code "retryable": false}). The Node SDK's
 * NonRetryableError; any exception implementing {@link NonRetryable} counts too.
 */
public class NonRetryableException extends RuntimeException implements NonRetryable {
  private static final long serialVersionUID = 1L;
  public NonRetryableException(String message) {
    super(message);
  }

  public NonRetryableException(String message, Throwable cause) {
    super(message, cause);
  }
}
