import { describe, expect, it } from 'vitest';
import { SEARCH_SCAN, searchInSlices } from './search-in-slices';

/** 12,000 rows, newest first (time = id), every 700th a match: a slice as searchSlice reads one (bound inclusive, next strictly below). */
const ROWS = Array.from({ length: 12_000 }, (_, i) => 12_000 - i);
const matches = (id: number) => id % 700 === 0;

function slices() {
  const reads: Array<{ budget: number; turn: number }> = [];
  let turn = 0;
  const tick = () => setImmediate(() => turn++);
  const read = async (after: { time: number; id: number } | null, scanBudget: number, limit: number) => {
    reads.push({ budget: scanBudget, turn });
    tick();
    const start = after === null ? 0 : ROWS.findIndex((id) => id < after.id);
    if (start < 0) return { rows: [], next: null };
    const examined = ROWS.slice(start, start + scanBudget);
    const found = examined.filter(matches);
    if (found.length > limit) return { rows: found.slice(0, limit), next: { time: found[limit - 1], id: found[limit - 1] } };
    const last = examined[examined.length - 1];
    return { rows: found, next: examined.length === scanBudget ? { time: last, id: last } : null };
  };
  return { read, reads };
}

describe('searchInSlices', () => {
  it('gives on SQLite what one read of the whole budget gives, reading it in slices, each after the first on a turn of its own', async () => {
    const { read, reads } = slices();
    const whole = await slices().read(null, SEARCH_SCAN.sqlite.budget, 50);
    const sliced = await searchInSlices('sqlite', { after: null, limit: 50 }, read);
    expect(sliced).toEqual(whole);
    expect(sliced.next).toEqual({ time: 12_000 - 4_999, id: 12_000 - 4_999 });
    expect(reads.map((r) => r.budget)).toEqual([1_000, 1_000, 1_000, 1_000, 1_000]);
    expect(new Set(reads.map((r) => r.turn)).size).toBe(5);
  });

  it('stops at the limit (going on after the slice it examined), where the range ends, and goes on from a cursor', async () => {
    const atLimit = await searchInSlices('sqlite', { after: null, limit: 2 }, slices().read);
    expect(atLimit).toEqual({ rows: [11_900, 11_200], next: { time: 11_001, id: 11_001 } });
    const onwards = await searchInSlices('sqlite', { after: { time: 3_000, id: 3_000 }, limit: 50 }, slices().read);
    expect(onwards).toEqual({ rows: [2_800, 2_100, 1_400, 700], next: null });
  });

  it('reads the budget in one slice on MariaDB', async () => {
    const { read, reads } = slices();
    expect(await searchInSlices('mysql', { after: null, limit: 50 }, read)).toEqual(await slices().read(null, SEARCH_SCAN.mysql.budget, 50));
    expect(reads.map((r) => r.budget)).toEqual([20_000]);
  });
});
