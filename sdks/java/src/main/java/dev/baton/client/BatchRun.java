package dev.baton.client;

/**
 * One run of a batch ({@link BatonClient#submitBatch}): the task and what {@link TriggerRequest}
 * says of the run (its params, flow params and idempotency key).
 *
 * <pre>{@code BatchRun.of(taskId, TriggerRequest.of(Map.of("orderId", 42)).withIdempotencyKey("order-42"))}</pre>
 */
public record BatchRun(long taskId, TriggerRequest run) {
  public static BatchRun of(long taskId, TriggerRequest run) {
    return new BatchRun(taskId, run == null ? TriggerRequest.of(null) : run);
  }
}
