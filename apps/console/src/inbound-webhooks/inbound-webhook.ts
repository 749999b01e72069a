import type { InboundWebhookScheme } from '@baton/persistence';
import type { LoginThrottleLimits } from '../auth/login-throttle';

/**
 * Terminology of the inbound-webhooks room:
 * - inbound webhook (hook): a URL a tenant admin gives a third party, `POST /api/hooks/<publicId>`;
 *   each delivery to it whose signature verifies becomes an event named `eventName` of the tenant
 *   (the events room's EventsService, the same path as POST /api/events);
 * - delivery: one POST of the third party: a JSON object body, signed with the hook's secret by
 *   its scheme (verify-signature.ts); its delivery id (GitHub) or event id (Stripe) is the event's
 *   idempotency key, so the sender's retries start no second run.
 */
export const INBOUND_WEBHOOK_SCHEMES: readonly InboundWebhookScheme[] = ['GITHUB', 'STRIPE'];

/** The path of the public receiving route, under which a hook's URL is `<console>/api/hooks/<publicId>`. */
export const HOOKS_PATH = '/api/hooks/';

/** A hook's public id: `ih_` and 32 random bytes base64url (43 characters). */
export const PUBLIC_ID_PATTERN = /^ih_[A-Za-z0-9_-]{43}$/;

/** How far a Stripe-style signature's timestamp may be from the console's clock: 300 s (Stripe's own libraries' default). */
export const STRIPE_TOLERANCE_SECONDS = 300;

/**
 * How long a delivery's hook (its tenant, event name and secret) is kept after its read: the
 * longest a secret replaced or a hook deleted through another console process still verifies
 * deliveries on this one (through this one: not at all). 1,000 ms, as a revoked API key
 * (API_KEY_CHECK_KEEP_MS).
 */
export const HOOK_KEEP_MS = 1_000;

/** An admin-chosen secret: 16 to 128 printable ASCII characters (what GitHub's and Stripe's forms accept). */
export const SECRET_PATTERN = /^[\x21-\x7e]{16,128}$/;

/**
 * Failed signatures of one hook: the first 5 in 15 minutes are each logged (a warning naming the
 * hook and the client's address); then a wait starts (1 minute, doubling up to 15) during which
 * further failures are refused with no write at all. A delivery with a right signature is accepted
 * even during a wait: the count bounds what a stranger makes Baton write, it never blocks the sender.
 * Kept in the login throttle's table (keys hashed, nothing shared with logins' keys).
 */
export const HOOK_FAILURE_LIMITS: LoginThrottleLimits = {
  freeFailuresPerAccountAddress: 5,
  freeFailuresPerAddress: 5,
  baseDelayMs: 60 * 1000,
  maxDelayMs: 15 * 60 * 1000,
  forgetAfterMs: 15 * 60 * 1000,
};

/** The one answer to a delivery whose hook is unknown or whose signature does not verify: either says nothing of whether the hook exists. */
export const SIGNATURE_REFUSED = 'signature does not verify (unknown hook, wrong secret, or a body changed on the way)';
