import { describe, expect, it } from 'vitest';
import { KeptReads } from './kept-reads';

describe('KeptReads', () => {
  it('answers a value until keepMs after its read, then nothing', () => {
    const reads = new KeptReads<number>(1_000);
    reads.set('a', 1, 5_000);
    expect(reads.get('a', 5_999)).toBe(1);
    expect(reads.get('a', 6_000)).toBeUndefined();
    expect(reads.get('a', 5_500)).toBeUndefined(); // dropped once expired
  });

  it('forgets a key on demand', () => {
    const reads = new KeptReads<number>(1_000);
    reads.set('a', 1, 0);
    reads.forget('a');
    expect(reads.get('a', 1)).toBeUndefined();
  });

  it('clears what it keeps rather than grow past maxKeys; a key kept already is replaced in place', () => {
    const reads = new KeptReads<number>(1_000, 2);
    reads.set('a', 1, 0);
    reads.set('b', 2, 0);
    reads.set('b', 3, 0);
    expect([reads.get('a', 1), reads.get('b', 1)]).toEqual([1, 3]);
    reads.set('c', 4, 0);
    expect([reads.get('a', 1), reads.get('b', 1), reads.get('c', 1)]).toEqual([undefined, undefined, 4]);
  });
});
