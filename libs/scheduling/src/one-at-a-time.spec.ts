import { describe, expect, it } from 'vitest';
import { OneAtATime } from './one-at-a-time';

describe('OneAtATime', () => {
  it('runs one key’s jobs in order, one at a time, and other keys’ jobs alongside; a failure does not stop the next', async () => {
    const lane = new OneAtATime();
    const log: string[] = [];
    const job = (name: string, ms: number, fail = false) => async () => {
      log.push(`start ${name}`);
      await new Promise((r) => setTimeout(r, ms));
      log.push(`end ${name}`);
      if (fail) throw new Error(name);
      return name;
    };
    const a1 = lane.run('a', job('a1', 20, true));
    const a2 = lane.run('a', job('a2', 5));
    const b1 = lane.run('b', job('b1', 5));
    await expect(a1).rejects.toThrow('a1');
    expect(await a2).toBe('a2');
    expect(await b1).toBe('b1');
    expect(log.indexOf('end a1')).toBeLessThan(log.indexOf('start a2'));
    expect(log.indexOf('start b1')).toBeLessThan(log.indexOf('end a1'));
  });
});
