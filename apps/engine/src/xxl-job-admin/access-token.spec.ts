import { describe, expect, it } from 'vitest';
import { xxlJobTokenMatches } from './access-token';

describe('XXL-JOB access token check', () => {
  it('the tenant’s token passes; any other, a missing one or a tenant without a token does not', () => {
    expect(xxlJobTokenMatches('alpha-token-0123456789', 'alpha-token-0123456789')).toBe(true);
    for (const presented of ['alpha-token-012345678', 'alpha-token-01234567890', 'ALPHA-TOKEN-0123456789', '', undefined, ['alpha-token-0123456789'], 42]) {
      expect(xxlJobTokenMatches('alpha-token-0123456789', presented), String(presented)).toBe(false);
    }
    for (const expected of [null, undefined, '']) expect(xxlJobTokenMatches(expected, 'anything-at-all-1234')).toBe(false);
    expect(xxlJobTokenMatches(null, '')).toBe(false);
  });
});
