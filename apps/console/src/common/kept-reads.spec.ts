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

  it('reads through only the keys it does not keep, in one read; a key the read does not answer is read again next time', async () => {
    const reads = new KeptReads<string>(1_000);
    const asked: number[][] = [];
    const read = async (ids: number[]) => {
      asked.push(ids);
      return new Map(ids.filter((id) => id !== 3).map((id) => [id, `task ${id}`]));
    };
    expect([...(await reads.through('acme', [1, 2, 3], 0, read))]).toEqual([[1, 'task 1'], [2, 'task 2']]);
    expect([...(await reads.through('acme', [2, 3, 4], 10, read))]).toEqual([[2, 'task 2'], [4, 'task 4']]);
    expect([...(await reads.through('globex', [2], 10, read))]).toEqual([[2, 'task 2']]); // another prefix: its own read
    expect(asked).toEqual([[1, 2, 3], [3, 4], [2]]);
  });
});
