import { describe, expect, it } from 'vitest';
import { TenantPace } from './tenant-pace';

describe('TenantPace', () => {
  it('counts a tenant’s accepted runs over the last window, forgetting older ones', () => {
    const pace = new TenantPace();
    for (let i = 0; i < 10; i++) pace.accepted('a', 1_000 + i * 100); // 1.0 s … 1.9 s
    pace.accepted('b', 1_500);
    expect(pace.recent('a', 2_000, 2_000)).toBe(10);
    expect(pace.recent('b', 2_000, 2_000)).toBe(1);
    expect(pace.recent('a', 2_400, 1_000)).toBe(5); // since 1.4 s, to a bucket: 1.5 s … 1.9 s
    expect(pace.recent('a', 10_000, 2_000)).toBe(0);
    expect(pace.recent('nobody', 10_000, 2_000)).toBe(0);
  });

  it('keeps when a tenant’s unclaimed run last lost its mark to a peer, per tenant, forgetting one older than asked', () => {
    const pace = new TenantPace();
    pace.lostUnclaimed('a', 1_000);
    pace.lostUnclaimed('a', 3_000);
    expect([pace.lostUnclaimedSince('a', 3_000), pace.lostUnclaimedSince('b', 0)]).toEqual([true, false]);
    expect(pace.lostUnclaimedSince('a', 3_001)).toBe(false);
    expect(pace.lostUnclaimedSince('a', 0)).toBe(false); // forgotten
  });
});
