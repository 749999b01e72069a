package dev.baton.client;

/**
 * An event's result in a batch ({@link BatonClient#emitEvents}), in the order sent: {@code status}
 * 201 stored now, 200 stored before under its idempotency key, 400 refused; the {@code event} when
 * stored (else null), the {@code refusal} when not (else null: fields named as the batch names
 * them, {@code events[2].name}).
 */
public record EventResult(int status, EmittedEvent event, BatonApiException refusal) {}
