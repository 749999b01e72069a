import { describe, expect, it } from 'vitest';
import type { GroupPeers } from '../common/group-peers';
import { readEngineConfig } from '../config/engine-config';
import { ClusterAddressGuard } from './cluster-address-guard';

describe("the cluster address guard: no executor at the cluster's own listening addresses", () => {
  const config = readEngineConfig(
    {},
    {
      host: '0.0.0.0',
      port: 8090,
      publicUrl: 'http://engine-1.internal:8090',
      databaseUrl: 'mysql://baton:pw@127.0.0.1:3428/baton',
      brokerUrl: 'failover:(stomp://mq-1:61613,stomp://user:pw@mq-2:61614)',
      clusterAddresses: ['http://console-1:8080', 'https://console.example.com'],
    },
  );
  const guard = new ClusterAddressGuard(config, { urls: () => ['http://engine-2.internal:8091'] } as unknown as GroupPeers);

  it.each([
    ['this engine, on every interface', 'http://localhost:8090'],
    ['this engine, by its URL', 'http://engine-1.internal:8090'],
    ['another engine (engine_nodes)', 'http://engine-2.internal:8091/'],
    ['the database', 'http://127.0.0.1:3428'],
    ['the database, as IPv6 loopback', 'http://[::1]:3428'],
    ['a broker of the failover list', 'http://mq-2:61614'],
    ['a console the operator listed', 'http://console-1:8080'],
    ['a console on https', 'https://console.example.com/baton'],
  ])('refuses %s (403 naming url, the same reason for each)', (_what, url) => {
    expect(guard.verdict(url, null)).toEqual({ ok: false, reason: expect.stringContaining('is a listening address of the Baton cluster itself') });
  });

  it('lets an executor on another port of this machine register (the embedded demo executor), and keeps the policy first', () => {
    expect(guard.verdict('http://127.0.0.1:8081', null)).toEqual({ ok: true });
    expect(guard.verdict('http://169.254.169.254:8090', null)).toEqual({ ok: false, reason: expect.stringContaining('which Baton never calls') });
  });

  it('refuses at the connection an address a name resolves to that is one of them, at the URL port', () => {
    expect(guard.check('http://exec.example:3428', null)('exec.example', '127.0.0.1')).toContain('exec.example resolves to an address that is a listening address of the Baton cluster itself');
    expect(guard.check('http://exec.example:8081', null)('exec.example', '127.0.0.1')).toBeNull();
    expect(guard.check('http://exec.example', null)('exec.example', '169.254.169.254')).toContain('which Baton never calls');
  });

  it('builds the address list once per change of its inputs (asked on every dispatch): a new engine, or this one bound elsewhere', () => {
    let peerUrls = ['http://engine-2.internal:8091'];
    const own = { ...config, publicUrl: null as string | null };
    const cached = new ClusterAddressGuard(own, { urls: () => peerUrls } as unknown as GroupPeers);
    const first = cached.current();
    expect(cached.current()).toBe(first);
    expect(cached.verdict('http://engine-3.internal:8092', null)).toEqual({ ok: true });

    peerUrls = [...peerUrls, 'http://engine-3.internal:8092'];
    expect(cached.current()).not.toBe(first);
    expect(cached.verdict('http://engine-3.internal:8092', null)).toEqual({ ok: false, reason: expect.stringContaining('is a listening address of the Baton cluster itself') });

    own.publicUrl = 'http://engine-1.example:9000'; // startEngine sets it once bound
    expect(cached.verdict('http://engine-1.example:9000', null)).toEqual({ ok: false, reason: expect.stringContaining('is a listening address of the Baton cluster itself') });
    const settled = cached.current();
    expect(cached.current()).toBe(settled);
  });
});
