import { describe, expect, it } from 'vitest';
import { OneAtATime } from './one-at-a-time';

describe('OneAtATime', () => {
  it('runs one key’s jobs in order, one at a time, and other keys’ jobs alongside; a failure does not stop the next', async () => {
    const lane = new OneAtATime();
    const log: string[] = [];
    // Each job ends when the test says so: the order is the lane's, not the machine's pace.
    const ends = new Map<string, () => void>();
    const job = (name: string, fail = false) => async () => {
      log.push(`start ${name}`);
      await new Promise<void>((r) => ends.set(name, r));
      log.push(`end ${name}`);
      if (fail) throw new Error(name);
      return name;
    };
    const a1 = lane.run('a', job('a1', true));
    const a2 = lane.run('a', job('a2'));
    const b1 = lane.run('b', job('b1'));
    await waitFor(() => ends.has('a1') && ends.has('b1'));
    expect(ends.has('a2')).toBe(false); // a2 waits for a1, b1 does not
    ends.get('b1')!();
    expect(await b1).toBe('b1');
    ends.get('a1')!();
    await expect(a1).rejects.toThrow('a1');
    await waitFor(() => ends.has('a2'));
    ends.get('a2')!();
    expect(await a2).toBe('a2');
    expect(log).toEqual(['start a1', 'start b1', 'end b1', 'end a1', 'start a2', 'end a2']);
  });
});

/** Lets promise callbacks run until `done` holds (a few turns of the microtask queue). */
async function waitFor(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) await Promise.resolve();
  if (!done()) throw new Error('the lane did not get there');
}
