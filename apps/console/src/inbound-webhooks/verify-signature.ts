import { createHmac, timingSafeEqual } from 'node:crypto';
import type { InboundWebhookScheme } from '@baton/persistence';

/**
 * The signature a delivery carries, read from its headers before its hook is looked up, so that
 * what is said about a missing, malformed or stale signature is the same whether the hook exists:
 * - GitHub style: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, raw body)>`, and the
 *   delivery's id in `X-GitHub-Delivery` (required by HookDeliveriesService, null here when absent);
 * - Stripe style: `Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`
 *   (several v1 are allowed: Stripe sends one per live secret while a secret is rolled).
 */
export type DeliverySignature =
  | { scheme: 'GITHUB'; digests: string[]; deliveryId: string | null }
  | { scheme: 'STRIPE'; digests: string[]; timestampSeconds: number };

export type SignatureHeaders = Record<string, string | string[] | undefined>;

const HEX_SHA256 = /^[0-9a-f]{64}$/i;

function header(headers: SignatureHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The delivery's signature, or why it has none that Baton can check (a 401's reason). */
export function readSignature(headers: SignatureHeaders): DeliverySignature | { problem: string } {
  const github = header(headers, 'x-hub-signature-256');
  const stripe = header(headers, 'stripe-signature');
  if (github !== undefined) {
    const match = /^sha256=([0-9a-f]{64})$/i.exec(github.trim());
    if (!match) return { problem: 'X-Hub-Signature-256 must be sha256=<64 hex digits>' };
    return { scheme: 'GITHUB', digests: [match[1]], deliveryId: header(headers, 'x-github-delivery')?.trim() || null };
  }
  if (stripe !== undefined) {
    const parts = stripe.split(',').map((part) => part.trim().split('='));
    const t = parts.find(([k]) => k === 't')?.[1];
    const digests = parts.flatMap(([k, v]) => (k === 'v1' && v !== undefined && HEX_SHA256.test(v) ? [v] : []));
    if (t === undefined || !/^\d{1,12}$/.test(t) || digests.length === 0) return { problem: 'Stripe-Signature must be t=<unix seconds>,v1=<64 hex digits>' };
    return { scheme: 'STRIPE', digests, timestampSeconds: Number(t) };
  }
  return { problem: 'no signature: send X-Hub-Signature-256 (GitHub style) or Stripe-Signature (Stripe style)' };
}

/** Why a Stripe-style timestamp is outside the replay window around `now` (ms), or null. GitHub style carries no timestamp. */
export function staleProblem(signature: DeliverySignature, now: number, toleranceSeconds: number): string | null {
  if (signature.scheme !== 'STRIPE') return null;
  const skew = Math.abs(now / 1000 - signature.timestampSeconds);
  return skew > toleranceSeconds ? `Stripe-Signature timestamp is more than ${toleranceSeconds} s away from the server's clock (a replay, or a clock to fix)` : null;
}

/**
 * The HMAC-SHA256 of the delivery's raw body under `secret` with the hook's scheme (64 lower-case
 * hex digits) when one of the delivery's digests is it (compared in constant time), else null:
 * the signature the delivery verified with, which a replay of it carries too.
 */
export function verifiedDigest(signature: DeliverySignature, scheme: InboundWebhookScheme, secret: string, rawBody: Buffer): string | null {
  if (signature.scheme !== scheme) return null;
  const hmac = createHmac('sha256', secret);
  if (signature.scheme === 'STRIPE') hmac.update(`${signature.timestampSeconds}.`, 'utf8');
  const expected = hmac.update(rawBody).digest();
  // Every digest is compared, matched or not, so the time taken says nothing of which one matched.
  let matched = false;
  for (const digest of signature.digests) matched = timingSafeEqual(expected, Buffer.from(digest, 'hex')) || matched;
  return matched ? expected.toString('hex') : null;
}
