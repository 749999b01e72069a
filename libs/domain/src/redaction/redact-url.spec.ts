import { describe, expect, it } from 'vitest';
import { redactUrlPasswords } from './redact-url';

describe('redactUrlPasswords', () => {
  it('hides the password of a URL, of each URL of a list, and one holding a comma or an encoded @', () => {
    expect(redactUrlPasswords('mysql://baton:hunter2@db:3306/baton')).toBe('mysql://baton:***@db:3306/baton');
    expect(redactUrlPasswords('stomp://baton:secret@mq-1:1,stomp://baton:other@mq-2:2')).toBe('stomp://baton:***@mq-1:1,stomp://baton:***@mq-2:2');
    expect(redactUrlPasswords('mysql://u:p,w%40x@db/baton')).toBe('mysql://u:***@db/baton');
  });

  it('keeps a URL without a password, and the hosts of a list whose first URL has none', () => {
    expect(redactUrlPasswords('sqlite:./baton.db')).toBe('sqlite:./baton.db');
    expect(redactUrlPasswords('mysql://baton@db/baton')).toBe('mysql://baton@db/baton');
    expect(redactUrlPasswords('stomp://mq-1:61613,stomp://u:p@mq-2:61623')).toBe('stomp://mq-1:61613,stomp://u:***@mq-2:61623');
    expect(redactUrlPasswords('failover:(stomp://mq-1:61613,tcp://u:p@mq-2:61623)')).toBe('failover:(stomp://mq-1:61613,tcp://u:***@mq-2:61623)');
  });
});
