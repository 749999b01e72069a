import { describe, expect, it } from 'vitest';
import { aClaimedRun } from '../testing/claimed-run-fixture';
import { HeldBackLines } from './held-back-lines';

const T0 = Date.UTC(2026, 0, 1);
const run = (runId: number, taskId: number, instant: number) => ({ ...aClaimedRun(runId, instant), taskId, instant });
const dueBy = (now: number) => (r: { instant: number }) => r.instant <= now;

describe('HeldBackLines', () => {
  it('gives the runs due now with the tasks in turn, then runs sent ahead earliest first, beyond the kept places', () => {
    const lines = new HeldBackLines();
    for (let i = 0; i < 4; i++) lines.add(run(100 + i, 7, T0 + i), false); // task 7's backlog, due
    lines.add(run(200, 8, T0 + 50), false); // task 8's run, due, its instant later than the backlog's
    lines.add(run(300, 9, T0 + 60_000), false); // sent ahead
    lines.add(run(301, 10, T0 + 30_000), false); // sent ahead, earlier
    expect(lines.earliestInstant()).toBe(T0);
    expect(lines.take(3, 0, dueBy(T0 + 100)).map((r) => r.runId)).toEqual([100, 200, 101]);
    // 2 due left (102, 103); 4 places, 1 kept: both due, then one sent ahead, the earliest.
    expect(lines.take(4, 1, dueBy(T0 + 100)).map((r) => r.runId)).toEqual([102, 103, 301]);
    expect([lines.size, lines.earliestInstant()]).toEqual([1, T0 + 60_000]);
    expect(lines.takeAll().map((r) => r.runId)).toEqual([300]);
    expect(lines.size).toBe(0);
  });

  it('takes from thousands of tasks with a run each in one pass: a burst of one-shot tasks sent ahead', () => {
    const lines = new HeldBackLines();
    for (let t = 0; t < 5_000; t++) lines.add(run(t, t, T0 + 10_000 + (t % 7)), false);
    const taken = lines.take(2_000, 0, dueBy(T0));
    expect(taken).toHaveLength(2_000);
    expect(taken.every((r, i) => i === 0 || r.instant >= taken[i - 1].instant)).toBe(true);
    expect(lines.size).toBe(3_000);
  });
});
