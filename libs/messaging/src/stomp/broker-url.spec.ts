import { describe, expect, it } from 'vitest';
import { describeBroker, parseBrokerUrl } from './broker-url';

describe('broker URL (BATON_BROKER_URL)', () => {
  it('reads one broker, with the default STOMP port', () => {
    expect(parseBrokerUrl('stomp://127.0.0.1:61613')).toEqual([{ host: '127.0.0.1', port: 61613, ssl: false }]);
    expect(parseBrokerUrl('stomp://mq')).toEqual([{ host: 'mq', port: 61613, ssl: false }]);
    expect(parseBrokerUrl('stomp+ssl://mq:61614')).toEqual([{ host: 'mq', port: 61614, ssl: true }]);
  });

  it('reads a failover list, comma-separated or in ActiveMQ notation, in order', () => {
    const expected = [
      { host: 'mq-1', port: 61613, ssl: false },
      { host: 'mq-2', port: 61623, ssl: false },
    ];
    expect(parseBrokerUrl('stomp://mq-1:61613, stomp://mq-2:61623')).toEqual(expected);
    expect(parseBrokerUrl('failover:(stomp://mq-1:61613,tcp://mq-2:61623)?randomize=false')).toEqual(expected);
  });

  it('takes credentials (URL-encoded) as STOMP login/passcode', () => {
    expect(parseBrokerUrl('stomp://baton:s%40cret@mq:61613')).toEqual([{ host: 'mq', port: 61613, ssl: false, login: 'baton', passcode: 's@cret' }]);
    expect(describeBroker({ host: '::1', port: 61613, ssl: false })).toBe('stomp://[::1]:61613');
  });

  it('refuses what is not a STOMP broker URL', () => {
    expect(() => parseBrokerUrl('')).toThrow(/empty/);
    expect(() => parseBrokerUrl('http://mq:61613')).toThrow(/scheme/);
    expect(() => parseBrokerUrl('mq:61613')).toThrow(/scheme|URL/);
    expect(() => parseBrokerUrl('failover:()')).toThrow(/no broker/);
  });
});
