import { describe, expect, it } from 'vitest';
import { TenantTally } from './tenant-tally';

describe('TenantTally', () => {
  it('counts by tenant and says whether a tenant other than one has runs', () => {
    const tally = new TenantTally();
    expect(tally.hasOtherThan('a')).toBe(false);
    tally.add('a');
    tally.add('a');
    expect(tally.of('a')).toBe(2);
    expect(tally.hasOtherThan('a')).toBe(false);
    expect(tally.hasOtherThan('b')).toBe(true);
    tally.add('b');
    expect(tally.hasOtherThan('a')).toBe(true);
    tally.remove('b');
    expect(tally.of('b')).toBe(0);
    expect(tally.hasOtherThan('a')).toBe(false);
  });
});
