import { describe, expect, it } from 'vitest';
import { RETRY_BUDGET_WINDOW_MS, RetryBudget } from './retry-budget';

/** A whole second: the window's slots are seconds. */
const NOW = 1_700_000_000_000;

/** `n` retries decided at `now`, each wanting to be due at `dueAt` (backoff 0: `now`): their due times. */
function retries(budget: RetryBudget, n: number, now: number, dueAt = now): number[] {
  return Array.from({ length: n }, () => budget.place(dueAt, now).dueAt);
}

describe('RetryBudget', () => {
  it('lets a burst of one second of the floor through at once, then spaces the retries to the floor', () => {
    const budget = new RetryBudget({ share: 0.2, perSecond: 10 });
    const due = retries(budget, 30, NOW);
    expect(due.slice(0, 10)).toEqual(Array(10).fill(NOW));
    expect(due.slice(10)).toEqual(Array.from({ length: 20 }, (_, i) => NOW + (i + 1) * 100));
  });

  it('first attempts raise the rate by their share: a steady tenant retrying a fifth of its runs is never paced', () => {
    const budget = new RetryBudget({ share: 0.2, perSecond: 10 });
    // 100 first attempts a second, 20 of them failing and retried at once, for a minute (from the
    // window's tenth second: before, the 10 a second of the floor and what the window holds).
    for (let s = 0; s < 10; s++) budget.firstAttemptsEnded(100, NOW - (10 - s) * 1_000);
    for (let s = 0; s < 60; s++) {
      const at = NOW + s * 1_000;
      budget.firstAttemptsEnded(100, at);
      for (let r = 0; r < 20; r++) {
        const t = at + r * 50;
        expect(budget.place(t, t)).toEqual({ dueAt: t, paced: false });
      }
    }
  });

  it('a burst of first attempts earns its retries over the window, not at once', () => {
    const budget = new RetryBudget({ share: 0.5, perSecond: 10 });
    budget.firstAttemptsEnded(400, NOW);
    expect(budget.rate(NOW)).toBe(30);
    expect(budget.rate(NOW + 9_000)).toBe(30);
    expect(budget.rate(NOW + 10_000)).toBe(10);
  });

  it('first attempts earn retries only for the window', () => {
    const budget = new RetryBudget({ share: 0.2, perSecond: 10 });
    for (let s = 0; s < 10; s++) budget.firstAttemptsEnded(100, NOW + s * 1_000);
    expect(budget.rate(NOW + 9_000)).toBe(30);
    expect(budget.rate(NOW + 14_000)).toBe(20);
    expect(budget.rate(NOW + RETRY_BUDGET_WINDOW_MS + 9_000)).toBe(10);
  });

  it('a storm of failed first attempts is spaced at the floor plus their share, not let through as a burst', () => {
    const budget = new RetryBudget({ share: 0.2, perSecond: 10 });
    budget.firstAttemptsEnded(500, NOW);
    // 10 + 0.2 × 500 ÷ 10 = 20 a second: 20 at once, then one each 50 ms.
    const due = retries(budget, 500, NOW);
    expect(due.filter((d) => d === NOW)).toHaveLength(20);
    expect(Math.max(...due)).toBe(NOW + 480 * 50);
  });

  it('never makes a retry earlier than its backoff says', () => {
    const budget = new RetryBudget({ share: 0, perSecond: 1 });
    expect(budget.place(NOW + 60_000, NOW)).toEqual({ dueAt: NOW + 60_000, paced: false });
    for (let i = 0; i < 50; i++) {
      const wanted = NOW + i * 37;
      expect(budget.place(wanted, NOW).dueAt).toBeGreaterThanOrEqual(wanted);
    }
  });

  it('a retry with a long backoff takes its place at the decision: the ones due sooner are not pushed back behind it', () => {
    const budget = new RetryBudget({ share: 0, perSecond: 2 });
    budget.place(NOW + 3_600_000, NOW);
    expect(budget.place(NOW, NOW)).toEqual({ dueAt: NOW, paced: false });
    expect(budget.place(NOW, NOW)).toEqual({ dueAt: NOW + 500, paced: true });
  });

  it('perSecond 0 is no budget: every retry keeps its time', () => {
    const budget = new RetryBudget({ share: 0, perSecond: 0 });
    expect(retries(budget, 1_000, NOW)).toEqual(Array(1_000).fill(NOW));
  });

  it('a clock stepping back neither frees the line nor forgets the first attempts counted', () => {
    const budget = new RetryBudget({ share: 0, perSecond: 1 });
    budget.place(NOW, NOW);
    const back = NOW - 5_000;
    const placed = budget.place(back, back);
    expect(placed.paced).toBe(true);
    expect(placed.dueAt).toBeGreaterThanOrEqual(NOW);
    const counted = new RetryBudget({ share: 1, perSecond: 1 });
    counted.firstAttemptsEnded(10, NOW);
    counted.firstAttemptsEnded(10, back);
    expect(counted.rate(NOW)).toBe(3);
  });

  it('is idle once the window and the line are empty', () => {
    const budget = new RetryBudget({ share: 0.2, perSecond: 10 });
    expect(budget.idle(NOW)).toBe(true);
    budget.firstAttemptsEnded(1, NOW);
    expect(budget.idle(NOW)).toBe(false);
    expect(budget.idle(NOW + RETRY_BUDGET_WINDOW_MS + 1_000)).toBe(true);
    retries(budget, 20, NOW + 20_000);
    expect(budget.idle(NOW + 20_000)).toBe(false);
    expect(budget.idle(NOW + 40_000)).toBe(true);
  });

  it('refuses a policy it cannot apply', () => {
    expect(() => new RetryBudget({ share: -1, perSecond: 10 })).toThrow(/share/);
    expect(() => new RetryBudget({ share: 0.2, perSecond: Number.NaN })).toThrow(/perSecond/);
  });
});
