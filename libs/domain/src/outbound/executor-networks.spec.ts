import { describe, expect, it } from 'vitest';
import { checkExecutorUrl } from './outbound-policy';
import { MAX_EXECUTOR_NETWORKS, normalizeExecutorNetworks, validateExecutorNetworks } from './executor-networks';

const allowed = (url: string, networks: readonly string[] | null = null) => checkExecutorUrl(url, networks).ok;

describe('executor URLs refused whatever the list says (issue 12 item 11)', () => {
  it.each([
    'http://169.254.169.254/',
    'http://169.254.169.254:80/latest/meta-data/',
    'http://169.254.0.1:8080/',
    'http://2852039166/', // 169.254.169.254 as one decimal number: the URL parser rewrites it
    'http://0xa9.0xfe.0xa9.0xfe/',
    'http://0251.0376.0251.0376/',
    'http://[fe80::1]:8080/',
    'http://[::ffff:169.254.169.254]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[64:ff9b::a9fe:a9fe]/', // NAT64
    'http://[2002:a9fe:a9fe::1]/', // 6to4
    'http://[fd00:ec2::254]/', // AWS IMDS over IPv6
    'http://100.100.100.200/', // Alibaba Cloud metadata
    'http://metadata.google.internal/',
    'http://METADATA.google.internal./',
    'http://metadata/',
    'http://instance-data.ec2.internal/',
    'http://0.0.0.0:8080/',
    'http://[::]:8080/',
    'http://255.255.255.255/',
    'http://224.0.0.1/',
    'http://[ff02::1]/',
  ])('%s', (url) => {
    expect(checkExecutorUrl(url, null)).toMatchObject({ ok: false, reason: expect.stringContaining('which Baton never calls') });
    expect(checkExecutorUrl(url, ['0.0.0.0/0', '::/0', '*.internal', 'metadata.goog'])).toMatchObject({ ok: false });
  });

  it('allows every other URL by default (no list, or an empty one), loopback and private ranges included', () => {
    for (const url of ['http://127.0.0.1:9100', 'http://localhost:9100/', 'https://exec.acme.example', 'http://10.1.2.3:80', 'http://[::1]:9100', 'http://192.168.1.5', 'http://169.253.255.255', 'http://169.255.0.1']) {
      expect({ url, ok: allowed(url) }).toEqual({ url, ok: true });
      expect({ url, ok: allowed(url, []) }).toEqual({ url, ok: true });
    }
  });

  it('says a URL that does not parse is not a URL', () => {
    expect(checkExecutorUrl('not a url', null)).toEqual({ ok: false, reason: 'not a URL' });
  });
});

describe('a tenant allow-list', () => {
  const list = ['10.0.0.0/8', '192.168.7.9', 'fd00:abcd::/32', 'exec.acme.internal', '*.svc.cluster.local'];

  it.each([
    ['http://10.200.3.4:9100/', true],
    ['http://11.0.0.1/', false],
    ['http://192.168.7.9:80', true],
    ['http://192.168.7.10', false],
    ['http://[fd00:abcd::5]:9100', true],
    ['http://[fd00:abce::5]:9100', false],
    ['http://[::ffff:10.1.1.1]/', true], // IPv4-mapped: judged as the IPv4 address
    ['http://exec.acme.internal:9100', true],
    ['http://EXEC.acme.internal.:9100', true],
    ['http://other.acme.internal', false],
    ['http://billing.prod.svc.cluster.local:80', true],
    ['http://a.b.svc.cluster.local', true],
    ['http://svc.cluster.local', false], // *.domain is below the domain, not the domain itself
    ['http://evilsvc.cluster.local', false],
    ['http://svc.cluster.local.evil.example', false],
    ['http://localhost:9100', false],
    ['http://127.0.0.1:9100', false],
  ])('%s → %s', (url, ok) => {
    expect(allowed(url, list)).toBe(ok);
  });

  it('matches names by name and addresses by range: no DNS lookup (an IP range does not admit a host name)', () => {
    expect(allowed('http://localhost:9100', ['127.0.0.0/8'])).toBe(false);
    expect(allowed('http://127.0.0.1:9100', ['localhost'])).toBe(false);
  });

  it('names the list in the refusal', () => {
    expect(checkExecutorUrl('http://11.0.0.1/', ['10.0.0.0/8'])).toEqual({ ok: false, reason: "11.0.0.1 is not in the tenant's allowed executor networks (10.0.0.0/8)" });
  });
});

describe('validating an allow-list', () => {
  it('accepts ranges, addresses, host names and *.domains, and null', () => {
    expect(validateExecutorNetworks(['10.0.0.0/8', '0.0.0.0/0', '::/0', 'fd00::/8', '10.1.2.3', '::1', 'exec.internal', '*.svc.cluster.local', 'localhost', ' Exec.Example '])).toEqual([]);
    expect(validateExecutorNetworks(null)).toEqual([]);
    expect(validateExecutorNetworks([])).toEqual([]);
  });

  it('names each bad entry by index and says why', () => {
    expect(validateExecutorNetworks(['10.0.0.0/8', '10.0.0.0/33', 'http://x', 7, '', '10/8', '-bad.example', '*.', 'a..b'])).toEqual([
      { field: 'executorNetworks[1]', reason: 'not a CIDR range (like 10.0.0.0/8 or fd00::/8)' },
      { field: 'executorNetworks[2]', reason: 'not a CIDR range (like 10.0.0.0/8 or fd00::/8)' },
      { field: 'executorNetworks[3]', reason: 'must be a string' },
      { field: 'executorNetworks[4]', reason: 'must be 1 to 255 characters' },
      { field: 'executorNetworks[5]', reason: 'not a CIDR range (like 10.0.0.0/8 or fd00::/8)' },
      { field: 'executorNetworks[6]', reason: 'not a CIDR range, an IP address, a host name or *.domain' },
      { field: 'executorNetworks[7]', reason: 'not a CIDR range, an IP address, a host name or *.domain' },
      { field: 'executorNetworks[8]', reason: 'not a CIDR range, an IP address, a host name or *.domain' },
    ]);
  });

  it('refuses entries that only hold always-refused addresses, with the reason', () => {
    const reason = 'link-local, metadata and non-unicast addresses are always refused';
    expect(validateExecutorNetworks(['169.254.169.254', '169.254.0.0/16', '169.254.169.0/24', 'fe80::/64', '100.100.100.200', '224.0.0.0/8', 'metadata.google.internal'])).toEqual([
      ...['169.254.169.254', '169.254.0.0/16', '169.254.169.0/24', 'fe80::/64', '100.100.100.200', '224.0.0.0/8'].map((_, i) => ({ field: `executorNetworks[${i}]`, reason })),
      { field: 'executorNetworks[6]', reason: 'metadata host names are always refused' },
    ]);
    expect(validateExecutorNetworks(['169.0.0.0/8'])).toEqual([]); // contains link-local, and much else
  });

  it('refuses a non-array and too many entries', () => {
    expect(validateExecutorNetworks('10.0.0.0/8')).toEqual([{ field: 'executorNetworks', reason: 'must be an array of networks and host names, or null' }]);
    expect(validateExecutorNetworks(Array.from({ length: MAX_EXECUTOR_NETWORKS + 1 }, (_, i) => `10.0.${i}.0/24`))).toEqual([{ field: 'executorNetworks', reason: `must have at most ${MAX_EXECUTOR_NETWORKS} entries` }]);
  });

  it('stores the list trimmed, lower-cased and without repeats', () => {
    expect(normalizeExecutorNetworks([' Exec.Example ', 'exec.example', '10.0.0.0/8'])).toEqual(['exec.example', '10.0.0.0/8']);
    expect(normalizeExecutorNetworks(null)).toBeNull();
    expect(normalizeExecutorNetworks([])).toBeNull();
  });
});
