import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Request signing between engine and executor: HMAC-SHA256 with the tenant's executor
 * secret over timestamp, method, path and the body's SHA-256. The timestamp bounds a
 * replay to `maxSkewMs`; the engine also remembers signatures it has accepted within
 * that window, and run transitions are guarded, so a replay inside it changes nothing.
 */
export const SIGNATURE_HEADERS = {
  tenant: 'x-baton-tenant',
  timestamp: 'x-baton-timestamp',
  signature: 'x-baton-signature',
} as const;

/** How far a signed timestamp may be from the receiver's clock. Default 300 000 ms (5 min). */
export const DEFAULT_MAX_SKEW_MS = 300_000;

export interface SignedHeaders {
  [SIGNATURE_HEADERS.tenant]: string;
  [SIGNATURE_HEADERS.timestamp]: string;
  [SIGNATURE_HEADERS.signature]: string;
}

function canonical(timestamp: string, method: string, path: string, body: string): string {
  const bodyHash = createHash('sha256').update(body).digest('hex');
  return `${timestamp}\n${method.toUpperCase()}\n${path}\n${bodyHash}`;
}

export function sign(secret: string, tenantId: string, method: string, path: string, body: string, now: number): SignedHeaders {
  const timestamp = String(now);
  const signature = createHmac('sha256', secret).update(canonical(timestamp, method, path, body)).digest('hex');
  return {
    [SIGNATURE_HEADERS.tenant]: tenantId,
    [SIGNATURE_HEADERS.timestamp]: timestamp,
    [SIGNATURE_HEADERS.signature]: signature,
  };
}

/**
 * The one accepted spelling of a signature: lower-case hex of the 32 HMAC-SHA256 bytes, exactly
 * 64 characters — what `sign` writes. Why only one: hex decoding is lenient (`Buffer.from(s,
 * 'hex')` ignores case and stops at the first non-hex pair), so without it `ABCD…`, `abcd…0` and
 * `abcd…zz` all verify as the same signature while a replay guard sees different strings.
 */
const CANONICAL_SIGNATURE = /^[0-9a-f]{64}$/;

/** True for the one accepted spelling of a signature (see CANONICAL_SIGNATURE). */
export function isCanonicalSignature(signature: string): boolean {
  return CANONICAL_SIGNATURE.test(signature);
}

export type VerifyResult = { ok: true } | { ok: false; reason: 'MISSING_HEADERS' | 'STALE_TIMESTAMP' | 'MALFORMED_SIGNATURE' | 'BAD_SIGNATURE' };

export function verify(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  method: string,
  path: string,
  body: string,
  now: number,
  maxSkewMs = DEFAULT_MAX_SKEW_MS,
): VerifyResult {
  const timestamp = headers[SIGNATURE_HEADERS.timestamp];
  const signature = headers[SIGNATURE_HEADERS.signature];
  if (typeof timestamp !== 'string' || typeof signature !== 'string') return { ok: false, reason: 'MISSING_HEADERS' };
  const at = Number(timestamp);
  if (!Number.isFinite(at) || Math.abs(now - at) > maxSkewMs) return { ok: false, reason: 'STALE_TIMESTAMP' };
  if (!isCanonicalSignature(signature)) return { ok: false, reason: 'MALFORMED_SIGNATURE' };
  const expected = createHmac('sha256', secret).update(canonical(timestamp, method, path, body)).digest();
  const given = Buffer.from(signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'BAD_SIGNATURE' };
  return { ok: true };
}
