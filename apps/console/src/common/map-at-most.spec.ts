import { describe, expect, it } from 'vitest';
import { mapAtMost } from './map-at-most';

describe('mapAtMost', () => {
  it('answers in order, runs at most `limit` at once, and a held item does not hold the others', async () => {
    let running = 0;
    let most = 0;
    let releaseSlow!: () => void;
    const slowGate = new Promise<void>((r) => (releaseSlow = r));
    const done: number[] = [];
    let othersDone!: () => void;
    const allButTheSlowOne = new Promise<void>((r) => (othersDone = r));
    const all = mapAtMost([0, 1, 2, 3, 4, 5], 2, async (n) => {
      running++;
      most = Math.max(most, running);
      if (n === 0) await slowGate;
      else await new Promise((r) => setImmediate(r));
      running--;
      done.push(n);
      if (done.length === 5) othersDone();
      return n * 10;
    });
    await allButTheSlowOne;
    expect(done).toEqual([1, 2, 3, 4, 5]); // all went through the other place while 0 was held
    releaseSlow();
    expect(await all).toEqual([0, 10, 20, 30, 40, 50]);
    expect(most).toBe(2);
    expect(await mapAtMost([], 4, async () => 1)).toEqual([]);
  });
});
