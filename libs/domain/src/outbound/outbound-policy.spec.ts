import { describe, expect, it } from 'vitest';
import { checkOutboundAddress, checkOutboundUrl, type OutboundPurpose } from './outbound-policy';

const verdict = (address: string, purpose: OutboundPurpose, networks: readonly string[] | null = null, host = address) => checkOutboundAddress({ host, address, networks, purpose });

describe('the outbound policy: one rule for executors and webhooks (issue 21)', () => {
  it.each([
    ['127.0.0.1', 'loopback (127.0.0.0/8)'],
    ['127.8.9.10', 'loopback (127.0.0.0/8)'],
    ['::1', 'loopback (::1/128)'],
    ['::ffff:127.0.0.1', 'loopback (127.0.0.0/8)'],
    ['10.1.2.3', 'private (10.0.0.0/8)'],
    ['172.20.0.1', 'private (172.16.0.0/12)'],
    ['192.168.1.1', 'private (192.168.0.0/16)'],
    ['fd12:3456::1', 'unique local (fc00::/7)'],
    ['100.64.0.1', 'carrier-grade NAT (100.64.0.0/10)'],
    ['64:ff9b::a00:1', 'private (10.0.0.0/8)'], // NAT64 of 10.0.0.1
  ])('refuses a webhook to %s by default, naming the range', (address, range) => {
    expect(verdict(address, 'webhook')).toEqual({ ok: false, reason: `${address} is in ${range}, not allowed for this tenant` });
  });

  it.each([
    ['169.254.169.254', 'link-local (169.254.0.0/16)'],
    ['fe80::1', 'link-local (fe80::/10)'],
    ['fd00:ec2::254', 'cloud metadata (fd00:ec2::254/128)'],
    ['100.100.100.200', 'cloud metadata (100.100.100.200/32)'],
    ['::ffff:169.254.169.254', 'link-local (169.254.0.0/16)'],
    ['0.0.0.0', 'this network (0.0.0.0/8)'],
    ['::', 'unspecified (::/128)'],
    ['224.0.0.1', 'multicast (224.0.0.0/4)'],
  ])('never calls %s, whatever the purpose or the list', (address, range) => {
    for (const purpose of ['webhook', 'executor'] as const) {
      for (const networks of [null, ['0.0.0.0/0', '::/0']]) {
        expect(verdict(address, purpose, networks)).toEqual({ ok: false, reason: `${address} is in ${range}, which Baton never calls` });
      }
    }
  });

  it('lets webhooks reach public addresses, and the ranges the operator allowed the tenant', () => {
    expect(verdict('93.184.216.34', 'webhook')).toEqual({ ok: true });
    expect(verdict('2606:2800:220:1::1', 'webhook')).toEqual({ ok: true });
    expect(verdict('93.184.216.34', 'webhook', ['10.99.0.0/16'])).toEqual({ ok: true });
    expect(verdict('127.0.0.1', 'webhook', ['127.0.0.1'])).toEqual({ ok: true });
    expect(verdict('10.99.3.4', 'webhook', ['10.99.0.0/16'])).toEqual({ ok: true });
    expect(verdict('10.98.3.4', 'webhook', ['10.99.0.0/16'])).toMatchObject({ ok: false, reason: '10.98.3.4 is in private (10.0.0.0/8), not allowed for this tenant' });
  });

  it('applies the same list to executors: confined to it when set, anywhere but the never-ranges without one', () => {
    expect(verdict('127.0.0.1', 'executor')).toEqual({ ok: true });
    expect(verdict('10.1.2.3', 'executor')).toEqual({ ok: true });
    expect(verdict('10.99.3.4', 'executor', ['10.99.0.0/16'])).toEqual({ ok: true });
    expect(verdict('127.0.0.1', 'executor', ['10.99.0.0/16'])).toEqual({ ok: false, reason: '127.0.0.1 is in loopback (127.0.0.0/8), not allowed for this tenant' });
    expect(verdict('93.184.216.34', 'executor', ['10.99.0.0/16'])).toEqual({ ok: false, reason: "93.184.216.34 is not in the tenant's allowed executor networks (10.99.0.0/16)" });
  });

  it('judges a host name by every address it resolves to, without saying which address (DNS rebinding: 169.254.169.254.nip.io)', () => {
    expect(verdict('169.254.169.254', 'webhook', null, '169.254.169.254.nip.io')).toEqual({
      ok: false,
      reason: '169.254.169.254.nip.io resolves to an address in link-local (169.254.0.0/16), which Baton never calls',
    });
    expect(verdict('10.0.0.5', 'webhook', null, 'db.internal')).toEqual({ ok: false, reason: 'db.internal resolves to an address in private (10.0.0.0/8), not allowed for this tenant' });
  });

  it('trusts a host name the list names, whatever it resolves to but the never-ranges', () => {
    expect(verdict('10.0.0.5', 'webhook', ['hooks.internal'], 'hooks.internal')).toEqual({ ok: true });
    expect(verdict('10.0.0.5', 'webhook', ['*.internal'], 'a.hooks.internal')).toEqual({ ok: true });
    expect(verdict('169.254.169.254', 'webhook', ['hooks.internal'], 'hooks.internal')).toMatchObject({ ok: false });
    // A name entry does not allow the literal address it once resolved to.
    expect(verdict('10.0.0.5', 'webhook', ['hooks.internal'])).toMatchObject({ ok: false });
  });
});

describe('checking a URL before any lookup', () => {
  it('judges IP literals and metadata names; leaves other webhook names to the lookup', () => {
    expect(checkOutboundUrl('http://127.0.0.1:3000/api/operator/tenants', ['10.99.0.0/16'], 'webhook')).toEqual({
      ok: false,
      reason: '127.0.0.1 is in loopback (127.0.0.0/8), not allowed for this tenant',
    });
    expect(checkOutboundUrl('http://[::1]:3000/', null, 'webhook')).toMatchObject({ ok: false });
    expect(checkOutboundUrl('http://2130706433/', null, 'webhook')).toMatchObject({ ok: false }); // 127.0.0.1 as one number
    expect(checkOutboundUrl('http://metadata.google.internal./', null, 'webhook')).toEqual({ ok: false, reason: 'metadata.google.internal is a cloud metadata host name, which Baton never calls' });
    expect(checkOutboundUrl('https://hooks.example.com/x', null, 'webhook')).toEqual({ ok: true });
    expect(checkOutboundUrl('http://169.254.169.254.nip.io/', null, 'webhook')).toEqual({ ok: true }); // judged on what it resolves to
  });
});
