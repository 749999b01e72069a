package dev.baton.client;

/**
 * A run's result in a batch ({@link BatonClient#submitBatch}), in the order sent: {@code status}
 * 201 made now, 200 made before under its idempotency key, 400 refused, 404 no such task; the
 * {@code run} when made (else null), the {@code refusal} when not (else null: its code and the
 * fields it names as the batch names them, {@code runs[3].params.width}).
 */
public record BatchResult(int status, SubmittedRun run, BatonApiException refusal) {}
