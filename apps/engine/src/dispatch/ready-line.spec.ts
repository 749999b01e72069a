import { describe, expect, it } from 'vitest';
import type { ClaimedRun } from '../claimed-run';
import { ON_TIME_WINDOW_MS, ReadyLine } from './ready-line';

const run = (runId: number, dueAt: number) => ({ runId, dueAt }) as ClaimedRun;
const T = 1_000_000;

describe('ReadyLine', () => {
  it('serves the head oldest first and the tail newest first', () => {
    const line = new ReadyLine();
    [1, 2, 3, 4].forEach((id) => line.push(run(id, T + id)));
    expect(line.takeOldest()?.runId).toBe(1);
    expect(line.takeNewestOnTime(T + 4)?.runId).toBe(4);
    expect(line.takeOldest()?.runId).toBe(2);
    expect(line.takeNewestOnTime(T + 4)?.runId).toBe(3);
    expect(line.takeOldest()).toBeUndefined();
    expect(line.takeNewestOnTime(T + 4)).toBeUndefined();
    expect(line.size).toBe(0);
  });

  it('the runs of one instant are left to the general slots, all but the last', () => {
    const line = new ReadyLine();
    [1, 2, 3].forEach((id) => line.push(run(id, T)));
    expect(line.takeNewestOnTime(T)).toBeUndefined();
    line.push(run(4, T + 5)); // due alone after them
    expect(line.takeNewestOnTime(T + 5)?.runId).toBe(4);
    expect(line.takeOldest()?.runId).toBe(1);
    expect(line.takeOldest()?.runId).toBe(2);
    expect(line.takeNewestOnTime(T + 5)?.runId).toBe(3); // alone in line
  });

  it('the tail goes to an on-time slot only while it is on time', () => {
    const line = new ReadyLine();
    line.push(run(1, T));
    expect(line.takeNewestOnTime(T + ON_TIME_WINDOW_MS + 1)).toBeUndefined();
    expect(line.size).toBe(1);
    expect(line.takeNewestOnTime(T + ON_TIME_WINDOW_MS)?.runId).toBe(1);
  });

  it('a run pushed again or removed is not served twice, and takeAll hands back the rest in order', () => {
    const line = new ReadyLine();
    [1, 2, 3].forEach((id) => line.push(run(id, T)));
    line.push(run(1, T + 5)); // accepted again: its new place is at the tail
    expect(line.remove(2)).toBe(true);
    expect(line.remove(2)).toBe(false);
    expect(line.size).toBe(2);
    expect(line.takeNewestOnTime(T)?.runId).toBe(1);
    expect(line.takeAll().map((r) => r.runId)).toEqual([3]);
    expect(line.size).toBe(0);
  });

  it('stays compact over a long run of pushes and takes', () => {
    const line = new ReadyLine();
    for (let i = 0; i < 10_000; i++) {
      line.push(run(i, T));
      if (i % 2 === 1) {
        line.takeOldest();
        line.takeOldest();
      }
    }
    expect(line.size).toBe(0);
    expect(line.takeOldest()).toBeUndefined();
  });
});
