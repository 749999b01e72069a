import { describe, expect, it } from 'vitest';
import { ConfigThreads } from './config-threads';
import type { PlanInput } from './plan-input';

/** A thread whose jobs end when the test says. */
function heldThread(name: string, took: string[]) {
  const pending: Array<() => void> = [];
  const hold = <R>(value: R) => {
    took.push(name);
    return new Promise<R>((resolve) => pending.push(() => resolve(value)));
  };
  return {
    get load() {
      return pending.length;
    },
    read: () => hold({ errors: [] } as never),
    write: () => hold('version: 1\n'),
    plan: () => hold('[]'),
    close: async () => undefined,
    finishAll: () => pending.splice(0).forEach((finish) => finish()),
  };
}

describe('ConfigThreads', () => {
  it('gives each job to the thread with the least work: a second tenant\'s file does not wait behind the first\'s', async () => {
    const took: string[] = [];
    const [a, b] = [heldThread('a', took), heldThread('b', took)];
    const threads = new ConfigThreads([a, b]);
    const first = threads.plan({} as PlanInput);
    const second = threads.read('version: 1', 'beta');
    expect(took).toEqual(['a', 'b']);
    b.finishAll();
    await second;
    // Both idle but a: the next one goes to b, then the first idle one again.
    void threads.plan({} as PlanInput);
    expect(took).toEqual(['a', 'b', 'b']);
    a.finishAll();
    b.finishAll();
    await first;
    void threads.plan({} as PlanInput);
    expect(took.at(-1)).toBe('a');
    a.finishAll();
  });
});
