import { describe, expect, it } from 'vitest';
import { Coalescer } from './coalescer';

describe('Coalescer', () => {
  it('flushes the pushes of one turn together and gives each its own result', async () => {
    const batches: number[][] = [];
    const c = new Coalescer<number, number>(async (items) => {
      batches.push(items);
      return items.map((i) => i * 10);
    });
    expect(await Promise.all([1, 2, 3].map((i) => c.push(i)))).toEqual([10, 20, 30]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('gathers what arrives during a flush into the next batch, and caps batches at maxBatch', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const c = new Coalescer<number, number>(async (items) => {
      batches.push(items);
      if (batches.length === 1) await gate;
      return items;
    }, { maxBatch: 2 });
    const first = c.push(1);
    await new Promise((r) => setImmediate(r));
    const later = [2, 3, 4, 5, 6].map((i) => c.push(i));
    expect(c.pending).toBe(5);
    release();
    expect(await Promise.all([first, ...later])).toEqual([1, 2, 3, 4, 5, 6]);
    expect(batches).toEqual([[1], [2, 3], [4, 5], [6]]);
  });

  it('runs up to `concurrency` flushes at once; beyond that items wait and gather', async () => {
    const batches: number[][] = [];
    const gates: Array<() => void> = [];
    const c = new Coalescer<number, number>(
      async (items) => {
        batches.push(items);
        await new Promise<void>((r) => gates.push(r));
        return items;
      },
      { concurrency: 2 },
    );
    const turn = () => new Promise((r) => setImmediate(r));
    const all = [c.push(1)];
    await turn();
    all.push(c.push(2));
    await turn();
    all.push(c.push(3), c.push(4));
    await turn();
    expect(batches).toEqual([[1], [2]]); // two in flight, 3 and 4 wait
    gates.shift()!();
    await turn();
    await turn();
    expect(batches).toEqual([[1], [2], [3, 4]]);
    while (gates.length) gates.shift()!();
    expect(await Promise.all(all)).toEqual([1, 2, 3, 4]);
  });

  it('rejects every item of a failed batch and goes on with the next', async () => {
    let calls = 0;
    const c = new Coalescer<string, string>(async (items) => {
      calls++;
      if (calls === 1) throw new Error('database gone');
      return items;
    });
    const failed = Promise.allSettled([c.push('a'), c.push('b')]);
    expect((await failed).map((s) => s.status)).toEqual(['rejected', 'rejected']);
    expect(await c.push('c')).toBe('c');
  });

  it('refuses a flush that returns the wrong number of results', async () => {
    const c = new Coalescer<number, number>(async () => [1]);
    await expect(Promise.all([c.push(1), c.push(2)])).rejects.toThrow('flush returned 1 results for 2 items');
  });
});
