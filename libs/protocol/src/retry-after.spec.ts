import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './retry-after';

describe('parseRetryAfter', () => {
  const now = Date.UTC(2026, 10, 26, 12, 0, 0);

  it('reads delay-seconds and HTTP dates, a date already past as 0', () => {
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter(['2', '9'], now)).toBe(2_000);
    expect(parseRetryAfter(new Date(now + 4_000).toUTCString(), now)).toBe(4_000);
    expect(parseRetryAfter(new Date(now - 4_000).toUTCString(), now)).toBe(0);
  });

  it('is undefined when absent or unreadable', () => {
    for (const value of [undefined, '', '-1', '1.5', 'soon']) expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});
