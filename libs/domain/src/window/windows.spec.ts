import { describe, expect, it } from 'vitest';
import { debounceWindow } from './debounce-window';
import { keyAtRest } from './key-rest';
import { throttleDecision, type ThrottlePeriod } from './throttle-window';
import { debounceProblems, defaultDebounceWait, MAX_DEBOUNCE_WAIT_MS, throttleProblems, windowsProblems } from './validate-windows';
import { validateTask } from '../task/validate-task';
import { withTaskDefaults } from '../task/task-defaults';
import { ACTIVE_STATES, canTransition, KEY_GOING_STATES } from '../run/run-state';

const T = 1_000_000;

describe('debounceWindow', () => {
  const rule = { quietMs: 1000, maxWaitMs: 5000 };

  it('opens a window due a quiet time from the first submission, ending maxWait after it', () => {
    expect(debounceWindow(null, rule, T)).toEqual({ dueAt: T + 1000, until: T + 5000 });
  });

  it('moves the due time with each submission of the burst, keeping the window end', () => {
    let w = debounceWindow(null, rule, T);
    w = debounceWindow(w, rule, T + 400);
    expect(w).toEqual({ dueAt: T + 1400, until: T + 5000 });
    w = debounceWindow(w, rule, T + 1300);
    expect(w).toEqual({ dueAt: T + 2300, until: T + 5000 });
  });

  it('never lets a burst wait past maxWait from its first submission', () => {
    let w = debounceWindow(null, rule, T);
    for (let t = T + 500; t <= T + 4500; t += 500) w = debounceWindow(w, rule, t);
    expect(w).toEqual({ dueAt: T + 5000, until: T + 5000 });
    expect(debounceWindow(w, rule, T + 4999)).toEqual({ dueAt: T + 5000, until: T + 5000 });
  });

  it('a submission after the window was due but before its run was claimed starts the run at once', () => {
    const w = debounceWindow(null, rule, T);
    expect(debounceWindow(w, rule, T + 6000)).toEqual({ dueAt: T + 5000, until: T + 5000 });
  });

  it('with maxWait equal to the quiet time, the first submission fixes the start', () => {
    const w = debounceWindow(null, { quietMs: 1000, maxWaitMs: 1000 }, T);
    expect(debounceWindow(w, { quietMs: 1000, maxWaitMs: 1000 }, T + 900)).toEqual({ dueAt: T + 1000, until: T + 1000 });
  });
});

describe('throttleDecision', () => {
  const last = { limit: 2, periodMs: 1000, keep: 'LAST' as const };
  const first = { ...last, keep: 'FIRST' as const };

  it('starts the first `limit` submissions of a period, the period beginning with the first', () => {
    const a = throttleDecision(null, last, T);
    expect(a).toEqual({ decision: { action: 'START' }, period: { startedAt: T, count: 1, trailingAt: null } });
    const b = throttleDecision(a.period, last, T + 10);
    expect(b).toEqual({ decision: { action: 'START' }, period: { startedAt: T, count: 2, trailingAt: null } });
  });

  it('keep FIRST drops what comes beyond the limit within the period', () => {
    const full: ThrottlePeriod = { startedAt: T, count: 2, trailingAt: null };
    expect(throttleDecision(full, first, T + 999)).toEqual({ decision: { action: 'DROP' }, period: full });
  });

  it('keep LAST folds what comes beyond the limit into one run at the period end', () => {
    const full: ThrottlePeriod = { startedAt: T, count: 2, trailingAt: null };
    const c = throttleDecision(full, last, T + 500);
    expect(c).toEqual({ decision: { action: 'COALESCE', dueAt: T + 1000 }, period: { startedAt: T, count: 2, trailingAt: T + 1000 } });
    expect(throttleDecision(c.period, last, T + 900).decision).toEqual({ action: 'COALESCE', dueAt: T + 1000 });
  });

  it('a new period begins with the first submission after the last one ended', () => {
    const full: ThrottlePeriod = { startedAt: T, count: 2, trailingAt: null };
    expect(throttleDecision(full, first, T + 1000)).toEqual({ decision: { action: 'START' }, period: { startedAt: T + 1000, count: 1, trailingAt: null } });
    expect(throttleDecision(full, first, T + 7777)).toEqual({ decision: { action: 'START' }, period: { startedAt: T + 7777, count: 1, trailingAt: null } });
  });

  it('a trailing run opens the next period at its instant and counts in it', () => {
    const trailing: ThrottlePeriod = { startedAt: T, count: 2, trailingAt: T + 1000 };
    // limit 2: the trailing run is one, the submission the second
    expect(throttleDecision(trailing, last, T + 1200)).toEqual({ decision: { action: 'START' }, period: { startedAt: T + 1000, count: 2, trailingAt: null } });
    // limit 1: the trailing run fills the next period; the submission folds into that period's trailing run
    const one = { ...last, limit: 1 };
    expect(throttleDecision({ startedAt: T, count: 1, trailingAt: T + 1000 }, one, T + 1200)).toEqual({
      decision: { action: 'COALESCE', dueAt: T + 2000 },
      period: { startedAt: T + 1000, count: 1, trailingAt: T + 2000 },
    });
    // after the trailing run's own period ended, a fresh one
    expect(throttleDecision(trailing, last, T + 2500)).toEqual({ decision: { action: 'START' }, period: { startedAt: T + 2500, count: 1, trailingAt: null } });
  });

  it('never starts more than `limit` in a period, trailing runs included (a walk of every 100 ms)', () => {
    for (const rule of [last, first, { ...last, limit: 1 }, { ...first, limit: 3 }]) {
      let period: ThrottlePeriod | null = null;
      const starts: number[] = [];
      const periods = new Set<number>();
      for (let t = T; t < T + 10_000; t += 100) {
        const d = throttleDecision(period, rule, t);
        period = d.period;
        periods.add(period.startedAt);
        const decision = d.decision;
        if (decision.action === 'START') starts.push(t);
        if (decision.action === 'COALESCE' && !starts.includes(decision.dueAt)) starts.push(decision.dueAt);
      }
      expect(starts.length).toBeGreaterThanOrEqual(periods.size); // every period starts at least its first run
      for (const p of periods) expect(starts.filter((x) => x >= p && x < p + rule.periodMs).length).toBeLessThanOrEqual(rule.limit);
      // One run a period: no two starts closer than the period, whatever the boundaries.
      if (rule.limit === 1) starts.slice(1).forEach((s, i) => expect(s - starts[i]).toBeGreaterThanOrEqual(rule.periodMs));
    }
  });
});

describe('validation', () => {
  it('accepts null and complete values', () => {
    expect(debounceProblems(null)).toEqual([]);
    expect(debounceProblems({ key: 'customerId', quietMs: 1000 })).toEqual([]);
    expect(debounceProblems({ key: 'a.b', quietMs: 100, maxWaitMs: 100 })).toEqual([]);
    expect(throttleProblems(null)).toEqual([]);
    expect(throttleProblems({ key: 'customerId', limit: 1, periodMs: 60_000 })).toEqual([]);
    expect(throttleProblems({ key: 'customerId', limit: 1000, periodMs: 86_400_000, keep: 'FIRST' })).toEqual([]);
  });

  it('names each bad field and why', () => {
    expect(debounceProblems('x')).toEqual([{ field: 'debounce', reason: expect.stringContaining('object') }]);
    expect(debounceProblems({ quietMs: 99, extra: 1 }).map((e) => e.field)).toEqual(['debounce.extra', 'debounce.key', 'debounce.quietMs']);
    expect(debounceProblems({ key: 'k', quietMs: 5000, maxWaitMs: 4000 })).toEqual([{ field: 'debounce.maxWaitMs', reason: 'must be at least quietMs (5000)' }]);
    expect(debounceProblems({ key: 'k', quietMs: 5000, maxWaitMs: MAX_DEBOUNCE_WAIT_MS + 1 })[0].reason).toBe(`must be at most ${MAX_DEBOUNCE_WAIT_MS}`);
    expect(debounceProblems({ key: 'a..b', quietMs: 1.5 }).map((e) => e.field)).toEqual(['debounce.key', 'debounce.quietMs']);
    expect(throttleProblems({ key: 'k', limit: 0, periodMs: 50, keep: 'MIDDLE' }).map((e) => e.field)).toEqual(['throttle.limit', 'throttle.periodMs', 'throttle.keep']);
    expect(throttleProblems([]).map((e) => e.field)).toEqual(['throttle']);
    expect(windowsProblems({ key: 'k', quietMs: 1000 }, { key: 'k', limit: 1, periodMs: 1000 })).toEqual([{ field: 'throttle', reason: expect.stringContaining('not both') }]);
    expect(windowsProblems(undefined, undefined)).toEqual([]);
  });

  it('validateTask checks both and withTaskDefaults fills their defaults', () => {
    const base = { name: 'sync', executorApp: 'app', handler: 'h', trigger: { kind: 'MANUAL' } };
    expect(validateTask({ ...base, debounce: { key: 'customerId', quietMs: 1000 } })).toEqual([]);
    expect(validateTask({ ...base, throttle: { key: 'customerId', limit: 2 } })).toEqual([{ field: 'throttle.periodMs', reason: 'must be an integer' }]);
    expect(withTaskDefaults({ ...base, debounce: { key: 'c', quietMs: 2000 } }, 't').debounce).toEqual({ key: 'c', quietMs: 2000, maxWaitMs: 20_000 });
    expect(withTaskDefaults({ ...base, throttle: { key: 'c', limit: 1, periodMs: 1000 } }, 't').throttle).toEqual({ key: 'c', limit: 1, periodMs: 1000, keep: 'LAST' });
    expect(withTaskDefaults(base, 't')).toMatchObject({ debounce: null, throttle: null });
    expect(defaultDebounceWait(86_400_000)).toBe(MAX_DEBOUNCE_WAIT_MS);
  });
});

describe('COALESCING in the run state machine', () => {
  it('is claimed once due, or cancelled; it is active but holds no key place', () => {
    expect(canTransition('COALESCING', 'CLAIMED')).toBe(true);
    expect(canTransition('COALESCING', 'CANCELLED')).toBe(true);
    expect(canTransition('COALESCING', 'PENDING')).toBe(false);
    expect(canTransition('PENDING', 'COALESCING')).toBe(false);
    expect(ACTIVE_STATES).toContain('COALESCING');
    expect(KEY_GOING_STATES).not.toContain('COALESCING');
  });
});

describe('keyAtRest', () => {
  const T = 1_790_000_000_000;
  const rate = { perSecond: 2, burst: 4 };
  const throttle = { periodMs: 1000 };

  it('a bucket is at rest once refilled to its burst; a rate limit removed leaves nothing to keep', () => {
    const bucket = { tokens: 1, at: T };
    expect(keyAtRest({ bucket, throttle: null }, { rateLimit: rate, throttle: null }, T + 1499)).toBe(false);
    expect(keyAtRest({ bucket, throttle: null }, { rateLimit: rate, throttle: null }, T + 1500)).toBe(true);
    expect(keyAtRest({ bucket, throttle: null }, { rateLimit: null, throttle: null }, T)).toBe(true);
    expect(keyAtRest({ bucket: null, throttle: null }, { rateLimit: rate, throttle }, T)).toBe(true);
  });

  it('a throttle period is at rest once over, its trailing run\'s period included; and then a fresh key decides the same', () => {
    const rule = { limit: 1, periodMs: 1000, keep: 'LAST' as const };
    const first = throttleDecision(null, rule, T).period;
    const folded = throttleDecision(first, rule, T + 10).period; // a trailing run at T + 1000
    expect(folded.trailingAt).toBe(T + 1000);
    for (const [at, rest] of [[T + 999, false], [T + 1999, false], [T + 2000, true]] as const) {
      expect(keyAtRest({ bucket: null, throttle: folded }, { rateLimit: null, throttle: rule }, at)).toBe(rest);
    }
    expect(throttleDecision(folded, rule, T + 2000)).toEqual(throttleDecision(null, rule, T + 2000));
    expect(keyAtRest({ bucket: null, throttle: folded }, { rateLimit: null, throttle: null }, T)).toBe(true);
  });

  it('needs both at rest', () => {
    expect(keyAtRest({ bucket: { tokens: 4, at: T }, throttle: { startedAt: T, count: 1, trailingAt: null } }, { rateLimit: rate, throttle }, T + 500)).toBe(false);
  });
});
