package dev.baton.client;

/** What {@link BatonClient#trigger} answers: the run, and {@code created} false when its idempotency key had made it before (200, not 201). */
public record TriggerResult(SubmittedRun run, boolean created) {}
