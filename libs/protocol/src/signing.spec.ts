import { describe, expect, it } from 'vitest';
import { SIGNATURE_HEADERS, sign, verify } from './signing';

const secret = 's3cret';
const body = JSON.stringify({ runId: 7, attempt: 1 });
const now = 1_800_000_000_000;

describe('request signing', () => {
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
    expect(verify(secret, { ...headers, [SIGNATURE_HEADERS.signature]: 'zz' }, 'POST', '/p', body, now)).toEqual({ ok: false, reason: 'BAD_SIGNATURE' });
  });
});
