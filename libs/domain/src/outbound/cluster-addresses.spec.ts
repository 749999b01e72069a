import { describe, expect, it } from 'vitest';
import { clusterAddressOfUrl, clusterAddressRefusal, isClusterAddress, type ClusterAddresses } from './cluster-addresses';

const cluster: ClusterAddresses = {
  addresses: [
    { host: '0.0.0.0', port: 8090 }, // an engine on every interface
    { host: '127.0.0.1', port: 8080 }, // a console on loopback
    { host: 'db.internal', port: 3306 }, // the database elsewhere
    { host: '10.0.0.7', port: 61613 }, // a broker elsewhere
  ],
  localHosts: new Set(['baton-1', '10.0.0.5', 'fd00::5']),
};

describe("the cluster's own listening addresses: no executor may be at one", () => {
  it.each([
    'http://127.0.0.1:8090',
    'http://127.9.9.9:8090/baton',
    'http://localhost:8080',
    'http://LOCALHOST.:8080',
    'http://[::1]:8090',
    'http://[::ffff:127.0.0.1]:8080',
    'http://2130706433:8080', // 127.0.0.1, as the URL parser reads it
    'http://baton-1:8090',
    'http://10.0.0.5:8080',
    'http://[fd00::5]:8090',
    'https://db.internal:3306',
    'http://DB.internal:3306',
    'http://10.0.0.7:61613',
  ])('refuses %s, naming no process', (url) => {
    expect(clusterAddressRefusal(url, cluster)).toMatch(/is a listening address of the Baton cluster itself \(an engine, a console, its database or broker\)/);
  });

  it.each([
    'http://127.0.0.1:8091', // another port of this machine: the demo executor's
    'http://10.0.0.6:8090', // the engine's port, on another machine
    'http://db.internal:3307',
    'http://other.internal:3306', // a name is not resolved here (the connection's check sees its addresses)
    'http://10.0.0.8:61613',
    'http://127.0.0.1', // port 80
    'not a url',
  ])('leaves %s to the outbound policy', (url) => {
    expect(clusterAddressRefusal(url, cluster)).toBeNull();
  });

  it('judges an address a name resolved to, with its port', () => {
    expect(isClusterAddress('127.0.0.1', 8090, cluster)).toBe(true);
    expect(isClusterAddress('::ffff:10.0.0.5', 8080, cluster)).toBe(true);
    expect(isClusterAddress('10.0.0.7', 61613, cluster)).toBe(true);
    expect(isClusterAddress('10.0.0.7', 61614, cluster)).toBe(false);
  });

  it('reads a configured URL: its host, and its port or the default', () => {
    expect(clusterAddressOfUrl('mysql://baton:pw@db.internal/baton', 3306)).toEqual({ host: 'db.internal', port: 3306 });
    expect(clusterAddressOfUrl('http://[::1]:8090', 80)).toEqual({ host: '[::1]', port: 8090 });
    expect(clusterAddressOfUrl('sqlite:./data/baton.sqlite', 0)).toBeNull();
  });
});
