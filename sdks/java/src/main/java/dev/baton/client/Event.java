package dev.baton.client;

/**
 * An event for {@link BatonClient#emitEvent}: a name (1 to 100 of {@code A-Z a-z 0-9 . _ - :},
 * starting with a letter or digit), a payload that Jackson serialises to a JSON object of at most
 * 64,000 bytes (a {@code Map}, a bean, an {@code ObjectNode}; null: {@code {}}), and an idempotency
 * key (null: none) — one event per tenant and key, 1 to 62 of {@code A-Z a-z 0-9 - _ . : ~}.
 *
 * <pre>{@code Event.of("order.paid", Map.of("order", Map.of("id", 42))).withIdempotencyKey("paid-42")}</pre>
 */
public record Event(String name, Object payload, String idempotencyKey) {
  /** An event without an idempotency key. */
  public static Event of(String name, Object payload) {
    return new Event(name, payload, null);
  }

  public Event withIdempotencyKey(String idempotencyKey) {
    return new Event(name, payload, idempotencyKey);
  }
}
