package dev.baton.executor;

/**
 * Business work for one attempt of a run: return the result (anything Jackson serialises, or
 * null) → SUCCEEDED; throw → FAILED (retried per the task's policy, unless the exception is
 * {@link NonRetryable}). Runs on one of the executor's worker threads; an abort interrupts it.
 */
@FunctionalInterface
public interface Handler {
  Object run(RunContext ctx) throws Exception;
}
