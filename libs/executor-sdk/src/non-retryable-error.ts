/**
 * Thrown by a handler when trying again cannot help (a customer that does not exist, params
 * that can never work): the run ends FAILED at once, without spending the task's remaining
 * attempts — BullMQ's UnrecoverableError, Temporal's non-retryable failure. The final callback
 * carries `retryable: false`; the engine's retry policy is skipped for that run only.
 *
 *     if (!customer) throw new NonRetryableError(`no customer ${ctx.params.customerId}`);
 *
 * The SDK recognises it by `nonRetryable === true` (see isNonRetryable), not by `instanceof`,
 * so an error from another copy of the SDK, or an error class of your own with that property,
 * counts too.
 */
export class NonRetryableError extends Error {
  readonly code = 'NON_RETRYABLE';
  readonly nonRetryable = true;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'NonRetryableError';
  }
}

/** Whether a thrown value asks not to be retried: any object whose `nonRetryable` is `true`. */
export function isNonRetryable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { nonRetryable?: unknown }).nonRetryable === true;
}
