import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readSignature, verifiedDigest, staleProblem, type DeliverySignature } from './verify-signature';

const secret = 'whsec_test';
const body = Buffer.from('{"action":"opened","n":1}');
const hex = (data: string | Buffer) => createHmac('sha256', secret).update(data).digest('hex');
const now = 1_772_323_200_000;

function read(headers: Record<string, string>): DeliverySignature {
  const got = readSignature(headers);
  if ('problem' in got) throw new Error(got.problem);
  return got;
}

describe('GitHub-style signatures', () => {
  it('accepts the HMAC of the raw body, with or without a delivery id', () => {
    const sig = read({ 'x-hub-signature-256': `sha256=${hex(body)}`, 'x-github-delivery': 'd-1' });
    expect(sig).toMatchObject({ scheme: 'GITHUB', deliveryId: 'd-1' });
    expect(verifiedDigest(sig, 'GITHUB', secret, body)).toBe(hex(body));
    expect(read({ 'x-hub-signature-256': `sha256=${hex(body).toUpperCase()}` })).toMatchObject({ deliveryId: null });
  });
  it('refuses another body, another secret, another scheme', () => {
    const sig = read({ 'x-hub-signature-256': `sha256=${hex(body)}` });
    expect(verifiedDigest(sig, 'GITHUB', secret, Buffer.from('{"action":"opened","n":2}'))).toBeNull();
    expect(verifiedDigest(sig, 'GITHUB', 'other', body)).toBeNull();
    expect(verifiedDigest(sig, 'STRIPE', secret, body)).toBeNull();
  });
  it('names a malformed or missing header', () => {
    expect(readSignature({ 'x-hub-signature-256': hex(body) })).toEqual({ problem: expect.stringContaining('sha256=') });
    expect(readSignature({ 'x-hub-signature': 'sha1=abc' })).toEqual({ problem: expect.stringContaining('no signature') });
  });
});

describe('Stripe-style signatures', () => {
  const t = now / 1000;
  it('accepts the HMAC of "<t>.<body>", among several v1', () => {
    const sig = read({ 'stripe-signature': `t=${t},v1=${'0'.repeat(64)},v1=${hex(`${t}.${body}`)},v0=zz` });
    expect(sig).toMatchObject({ scheme: 'STRIPE', timestampSeconds: t });
    expect(verifiedDigest(sig, 'STRIPE', secret, body)).toBe(hex(`${t}.${body}`));
    expect(verifiedDigest(read({ 'stripe-signature': `t=${t + 1},v1=${hex(`${t}.${body}`)}` }), 'STRIPE', secret, body)).toBeNull();
    expect(verifiedDigest(read({ 'stripe-signature': `t=${t},v1=${hex(body)}` }), 'STRIPE', secret, body)).toBeNull();
  });
  it('refuses a timestamp outside the window, either way, and keeps one at its edge', () => {
    expect(staleProblem(read({ 'stripe-signature': `t=${t - 300},v1=${'a'.repeat(64)}` }), now, 300)).toBeNull();
    expect(staleProblem(read({ 'stripe-signature': `t=${t - 301},v1=${'a'.repeat(64)}` }), now, 300)).toContain('300 s');
    expect(staleProblem(read({ 'stripe-signature': `t=${t + 301},v1=${'a'.repeat(64)}` }), now, 300)).toContain('300 s');
    expect(staleProblem(read({ 'x-hub-signature-256': `sha256=${hex(body)}` }), now, 300)).toBeNull();
  });
  it('names a header without t or v1', () => {
    expect(readSignature({ 'stripe-signature': `v1=${hex(body)}` })).toEqual({ problem: expect.stringContaining('t=<unix seconds>') });
    expect(readSignature({ 'stripe-signature': `t=${t}` })).toEqual({ problem: expect.stringContaining('v1=') });
  });
});
