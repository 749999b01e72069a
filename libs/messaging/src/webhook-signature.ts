import { createHmac } from 'node:crypto';

/** Headers of a webhook POST: which delivery, when it was signed, and the signature. */
export const WEBHOOK_HEADERS = { delivery: 'x-baton-delivery', timestamp: 'x-baton-timestamp', signature: 'x-baton-signature' } as const;

/**
 * The X-Baton-Signature of a webhook body: `v1=` and the hex HMAC-SHA256, keyed by the channel's
 * secret, of `<timestamp>.<body>` — the receiver recomputes it over the raw body and refuses an
 * old timestamp, so a captured POST cannot be replayed later (as Stripe's and Slack's webhooks).
 */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** The headers of one webhook POST of `body` (the engines' deliveries and the console's test alike). */
export function webhookHeaders(input: { secret: string; delivery: string; timestamp: number; body: string }): Record<string, string> {
  return {
    'content-type': 'application/json',
    [WEBHOOK_HEADERS.delivery]: input.delivery,
    [WEBHOOK_HEADERS.timestamp]: String(input.timestamp),
    [WEBHOOK_HEADERS.signature]: signWebhook(input.secret, input.timestamp, input.body),
  };
}
