package dev.baton.client;

/**
 * A run asked for by {@link BatonClient#trigger}: its params (null: the task's own), its flow's
 * params (null: none), and an idempotency key (null: none) — one run per key and task however
 * often it is sent, 1 to 62 of {@code A-Z a-z 0-9 - _ . : ~}. Params are anything Jackson
 * serialises: a {@code Map}, a bean, a {@code JsonNode}.
 *
 * <pre>{@code TriggerRequest.of(Map.of("orderId", 42)).withIdempotencyKey("order-42")}</pre>
 */
public record TriggerRequest(Object params, Object flowParams, String idempotencyKey) {
  /** A run with these params (null: the task's), no flow params and no idempotency key. */
  public static TriggerRequest of(Object params) {
    return new TriggerRequest(params, null, null);
  }

  public TriggerRequest withFlowParams(Object flowParams) {
    return new TriggerRequest(params, flowParams, idempotencyKey);
  }

  public TriggerRequest withIdempotencyKey(String idempotencyKey) {
    return new TriggerRequest(params, flowParams, idempotencyKey);
  }
}
