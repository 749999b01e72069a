import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isCanonicalSignature, SIGNATURE_HEADERS, sign, verify } from './signing';

interface SigningVector {
  secret: string;
  tenant: string;
  method: string;
  path: string;
  body: string;
  timestamp: string;
  canonical: string;
  signature: string;
}

/** The vectors every SDK checks itself against (the Go SDK's signing_test.go reads the same file). */
const vectors = (JSON.parse(readFileSync(resolve(__dirname, '../signing-vectors.json'), 'utf8')) as { vectors: SigningVector[] }).vectors;

const secret = 's3cret';
const body = JSON.stringify({ runId: 7, attempt: 1 });
const now = 1_800_000_000_000;

describe('request signing', () => {
  it.each(vectors.map((v) => [`${v.method} ${v.path}`, v] as const))('reproduces the shared vector %s', (_name, v) => {
    const headers = sign(v.secret, v.tenant, v.method, v.path, v.body, Number(v.timestamp));
    expect(headers).toEqual({ [SIGNATURE_HEADERS.tenant]: v.tenant, [SIGNATURE_HEADERS.timestamp]: v.timestamp, [SIGNATURE_HEADERS.signature]: v.signature });
    expect(verify(v.secret, { ...headers }, v.method, v.path, v.body, Number(v.timestamp))).toEqual({ ok: true });
  });

  it('accepts what it signed', () => {
    const headers = sign(secret, 'acme', 'POST', '/baton/callbacks', body, now);
    expect(verify(secret, { ...headers }, 'POST', '/baton/callbacks', body, now + 1000)).toEqual({ ok: true });
  });

  it.each([
    ['another secret', { secret: 'other' }],
    ['a changed body', { body: body.replace('7', '8') }],
    ['another path', { path: '/baton/runs' }],
    ['another method', { method: 'PUT' }],
  ])('refuses %s', (_name, change: { secret?: string; body?: string; path?: string; method?: string }) => {
    const headers = sign(secret, 'acme', 'POST', '/baton/callbacks', body, now);
    const result = verify(change.secret ?? secret, { ...headers }, change.method ?? 'POST', change.path ?? '/baton/callbacks', change.body ?? body, now);
    expect(result).toEqual({ ok: false, reason: 'BAD_SIGNATURE' });
  });

  it('refuses a timestamp outside the skew window, either side', () => {
    const headers = sign(secret, 'acme', 'POST', '/p', body, now);
    expect(verify(secret, { ...headers }, 'POST', '/p', body, now + 300_001)).toEqual({ ok: false, reason: 'STALE_TIMESTAMP' });
    expect(verify(secret, { ...headers }, 'POST', '/p', body, now - 300_001)).toEqual({ ok: false, reason: 'STALE_TIMESTAMP' });
    expect(verify(secret, { ...headers }, 'POST', '/p', body, now + 300_000)).toEqual({ ok: true });
  });

  it('refuses missing or malformed headers', () => {
    expect(verify(secret, {}, 'POST', '/p', body, now)).toEqual({ ok: false, reason: 'MISSING_HEADERS' });
    const headers = sign(secret, 'acme', 'POST', '/p', body, now);
    expect(verify(secret, { ...headers, [SIGNATURE_HEADERS.signature]: 'zz' }, 'POST', '/p', body, now)).toEqual({ ok: false, reason: 'MALFORMED_SIGNATURE' });
  });

  // Issue 12 item 3: hex decoding ignores case and trailing junk, so these all decoded to the
  // valid signature and slipped past a replay guard keyed on the header string.
  it.each([
    ['upper-cased', (s: string) => s.toUpperCase()],
    ['mixed-case', (s: string) => s.replace(/[a-f]/, (c) => c.toUpperCase())],
    ['with 0 appended', (s: string) => s + '0'],
    ['with zz appended', (s: string) => s + 'zz'],
    ['with 00 appended (decodes to 33 bytes)', (s: string) => s + '00'],
    ['short (63 characters)', (s: string) => s.slice(0, 63)],
    ['65 characters', (s: string) => s + 'a'],
    ['with a space', (s: string) => ` ${s}`],
  ])('refuses a valid signature %s as MALFORMED_SIGNATURE', (_name, spell) => {
    const headers = sign(secret, 'acme', 'POST', '/p', body, now);
    const variant = spell(headers[SIGNATURE_HEADERS.signature]);
    expect(verify(secret, { ...headers, [SIGNATURE_HEADERS.signature]: variant }, 'POST', '/p', body, now)).toEqual({ ok: false, reason: 'MALFORMED_SIGNATURE' });
  });

  it('signs in the canonical form, and only that verifies', () => {
    const headers = sign(secret, 'acme', 'POST', '/p', body, now);
    expect(isCanonicalSignature(headers[SIGNATURE_HEADERS.signature])).toBe(true);
    expect(verify(secret, { ...headers }, 'POST', '/p', body, now)).toEqual({ ok: true });
    expect(isCanonicalSignature('A'.repeat(64))).toBe(false);
    expect(isCanonicalSignature('a'.repeat(64))).toBe(true);
  });
});
