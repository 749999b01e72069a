import { describe, expect, it } from 'vitest';
import { ManualClock } from '@baton/domain';
import { carriedRunRow, T0 } from '../testing/engine-test-kit';
import { MAX_WOKEN_BYTES, MAX_WOKEN_ROWS, WOKEN_ROW_TTL_MS, WokenRows } from './woken-rows';

describe('WokenRows', () => {
  it("gives each kept row once, to its tenant's claim, and names the ids it has no row for", () => {
    const woken = new WokenRows(new ManualClock(T0));
    woken.put('acme', [carriedRunRow(1), carriedRunRow(2)]);
    const first = woken.take('acme', [1, 3]);
    expect(first.given.map((r) => r.run.id)).toEqual([1]);
    expect(first.missing).toEqual([3]);
    expect(woken.take('acme', [1]).missing).toEqual([1]);
    // Another tenant's claim naming run 2 gets no row (and the row is spent: the claim reads it).
    expect(woken.take('other', [2])).toEqual({ given: [], missing: [2] });
    expect(woken.take('acme', [2]).missing).toEqual([2]);
  });

  it('refuses a wake-up holding a row of another tenant, keeping none of it', () => {
    const woken = new WokenRows(new ManualClock(T0));
    expect(() => woken.put('acme', [carriedRunRow(1), carriedRunRow(2, 'other')])).toThrow('a run row of another tenant than acme');
    expect(woken.take('acme', [1]).missing).toEqual([1]);
  });

  it('lets a row older than WOKEN_ROW_TTL_MS go (its run is read again), and drops the expired as new ones come', () => {
    const clock = new ManualClock(T0);
    const woken = new WokenRows(clock);
    woken.put('acme', [carriedRunRow(1), carriedRunRow(2)]);
    clock.advance(WOKEN_ROW_TTL_MS - 1);
    expect(woken.take('acme', [1]).given).toHaveLength(1);
    clock.advance(1);
    expect(woken.take('acme', [2]).missing).toEqual([2]);
    woken.put('acme', [carriedRunRow(3)]);
    clock.advance(WOKEN_ROW_TTL_MS);
    woken.put('acme', [carriedRunRow(4)]);
    expect(woken.size).toBe(1);
  });

  it('keeps at most MAX_WOKEN_ROWS, the oldest going first', () => {
    const woken = new WokenRows(new ManualClock(T0));
    woken.put('acme', Array.from({ length: MAX_WOKEN_ROWS + 2 }, (_, i) => carriedRunRow(i + 1)));
    expect(woken.size).toBe(MAX_WOKEN_ROWS);
    expect(woken.take('acme', [1, 2, 3]).missing).toEqual([1, 2]);
  });

  it('keeps at most MAX_WOKEN_BYTES of rows, the oldest going first: large params cannot make an engine hold more', () => {
    const woken = new WokenRows(new ManualClock(T0));
    const big = (id: number) => ({ ...carriedRunRow(id), params: JSON.stringify({ blob: 'x'.repeat(1024 * 1024) }) });
    woken.put('acme', Array.from({ length: 40 }, (_, i) => big(i + 1)));
    expect(woken.size).toBeLessThan(32);
    expect(woken.take('acme', [1]).missing).toEqual([1]);
    expect(woken.take('acme', [40]).given.map((r) => r.run.id)).toEqual([40]);
    // Taken rows free their bytes: small rows fit again.
    woken.put('acme', Array.from({ length: 100 }, (_, i) => carriedRunRow(1000 + i)));
    expect(woken.take('acme', [1000]).given).toHaveLength(1);
    expect(MAX_WOKEN_BYTES).toBe(32 * 1024 * 1024);
  });
});
