import { describe, expect, it } from 'vitest';
import { TenantTally } from './tenant-tally';

describe('TenantTally', () => {
  it('counts by tenant and how many tenants other than one have runs', () => {
    const tally = new TenantTally();
    expect(tally.othersThan('a')).toBe(0);
    tally.add('a');
    tally.add('a');
    expect(tally.of('a')).toBe(2);
    expect(tally.othersThan('a')).toBe(0);
    expect(tally.othersThan('b')).toBe(1);
    tally.add('b');
    tally.add('c');
    expect(tally.othersThan('a')).toBe(2);
    expect(tally.size).toBe(3);
    tally.remove('b');
    expect(tally.of('b')).toBe(0);
    expect(tally.othersThan('a')).toBe(1);
  });
});
