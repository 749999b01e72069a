import { describe, expect, it } from 'vitest';
import { BucketStore, E_STRIDE } from './bucket-store';

/** Takes every entry of bucket b, in order, as [time, slot]. */
function drain(s: BucketStore, b: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  while (!s.isEmpty(b)) {
    const e = s.headEntry(b);
    out.push([s.arena[e * E_STRIDE], s.arena[e * E_STRIDE + 2]]);
    s.popHead(b);
  }
  return out;
}

describe('BucketStore', () => {
  it('packs the arena instead of doubling it when half of it is free segments, keeping every bucket', () => {
    const s = new BucketStore(4, 0);
    // Bucket 3: 100 entries, 10 already served (a head inside its segment).
    for (let i = 0; i < 100; i++) s.place(3, 1000 + i, 0, i, 0);
    for (let i = 0; i < 10; i++) s.popHead(3);
    // Buckets 0 and 1 grow to 4096 entries each, then are served: their segments are all free.
    for (const b of [0, 1]) for (let i = 0; i < 4096; i++) s.place(b, i, 0, i, 0);
    for (const b of [0, 1]) drain(s, b);
    const length = s.arena.length;
    // Bucket 2 needs segments up to 8192 entries: no free segment is that large, the arena is full.
    for (let i = 0; i < 8192; i++) s.place(2, 5000 + (i % 7), 0, i, 0);
    expect(s.arena.length).toBeLessThan(2 * length); // not doubled (2.5× without packing)
    const two = drain(s, 2);
    expect(two).toHaveLength(8192);
    expect(two.every(([t], k) => k === 0 || t >= two[k - 1][0])).toBe(true);
    expect(drain(s, 3)).toEqual(Array.from({ length: 90 }, (_, k) => [1010 + k, 10 + k]));
  });
});
