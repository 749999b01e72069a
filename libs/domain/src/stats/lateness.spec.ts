import { describe, expect, it } from 'vitest';
import { EARLY_START_TOLERANCE_MS, firstAttemptLateness, retryWait, startedEarlyBy } from './lateness';

describe('lateness and retry wait', () => {
  const T = 1_000_000;
  it('a first attempt: lateness is scheduled → dispatched; no retry wait', () => {
    const run = { attempt: 1, scheduledAt: T, dueAt: T, dispatchedAt: T + 12 };
    expect(firstAttemptLateness(run)).toBe(12);
    expect(retryWait(run)).toBeNull();
    expect(firstAttemptLateness({ ...run, dispatchedAt: null })).toBeNull();
  });

  it('a dispatch deferred on its first attempt (no executor) is late, not a retry', () => {
    expect(firstAttemptLateness({ attempt: 1, scheduledAt: T, dueAt: T + 2_000, dispatchedAt: T + 2_010 })).toBe(2_010);
  });

  it('a first attempt its own keys held back (a rate key’s token, a concurrency key’s place) is late from its admission, never negative', () => {
    expect(firstAttemptLateness({ attempt: 1, scheduledAt: T, dueAt: T + 29_000, lateFromAt: T + 29_000, dispatchedAt: T + 29_015 })).toBe(15);
    expect(firstAttemptLateness({ attempt: 1, scheduledAt: T, dueAt: T + 50_000, lateFromAt: T + 50_000, dispatchedAt: T + 49_990 })).toBe(0);
    // A dispatch trouble after its admission is late from there.
    expect(firstAttemptLateness({ attempt: 1, scheduledAt: T, dueAt: T + 32_000, lateFromAt: T + 30_000, dispatchedAt: T + 32_000 })).toBe(2_000);
  });

  it('a retried run: its row’s lateFromAt is the retry’s instant, not its first attempt’s, which counts from the fire time', () => {
    expect(firstAttemptLateness({ attempt: 2, scheduledAt: T, dueAt: T + 5_000, lateFromAt: T + 5_000, dispatchedAt: T + 5_002, firstDispatchedAt: T + 9 })).toBe(9);
  });

  it('a retry attempt: its backoff is a retry wait, not lateness', () => {
    const run = { attempt: 3, scheduledAt: T, dueAt: T + 6_000, dispatchedAt: T + 6_004 };
    expect(firstAttemptLateness(run)).toBeNull();
    expect(retryWait(run)).toBe(6_000);
  });

  it('a retried run keeps its first attempt’s lateness (firstDispatchedAt), not its backoff (issue 24)', () => {
    const run = { attempt: 2, scheduledAt: T, dueAt: T + 1_840, dispatchedAt: T + 1_845, firstDispatchedAt: T + 7 };
    expect(firstAttemptLateness(run)).toBe(7);
    expect(retryWait(run)).toBe(1_840);
  });

  it('a run sent ahead (dispatched before its instant) is on time, 0, not negative: an early start is counted apart', () => {
    expect(firstAttemptLateness({ attempt: 1, scheduledAt: T, dueAt: T, dispatchedAt: T - 9_600 })).toBe(0);
    expect(firstAttemptLateness({ attempt: 2, scheduledAt: T, dueAt: T + 1_000, dispatchedAt: T + 1_000, firstDispatchedAt: T - 500 })).toBe(0);
  });

  it('a run handed back (sent ahead, never started by its executor) is as late as the attempt sent after it, not its instant; a hand-back is no retry', () => {
    // Attempt 1 sent ahead and handed back; attempt 2 sent 30 s after the instant and started.
    const resent = { attempt: 2, handBacks: 1, scheduledAt: T, dueAt: T + 29_000, dispatchedAt: T + 30_000, firstDispatchedAt: null };
    expect(firstAttemptLateness(resent)).toBe(30_000);
    expect(retryWait(resent)).toBeNull();
    // Its keys held it back first: from its admission, as a first attempt.
    expect(firstAttemptLateness({ ...resent, lateFromAt: T + 10_000 })).toBe(20_000);
    // The re-sent attempt failed and is retried: its dispatch was kept, the backoff is a retry wait.
    const retried = { attempt: 3, handBacks: 1, scheduledAt: T, dueAt: T + 40_000, dispatchedAt: T + 40_003, firstDispatchedAt: T + 30_000 };
    expect(firstAttemptLateness(retried)).toBe(30_000);
    expect(retryWait(retried)).toBe(40_000);
    // Handed back after a counted attempt: the first attempt's lateness stays.
    expect(firstAttemptLateness({ attempt: 3, handBacks: 1, scheduledAt: T, dueAt: T + 5_000, dispatchedAt: T + 5_100, firstDispatchedAt: T + 7 })).toBe(7);
  });

  it('gives a backfilled run no lateness: its fire time is past on purpose', () => {
    expect(firstAttemptLateness({ cause: 'BACKFILL', attempt: 1, scheduledAt: T - 86_400_000, dueAt: T, dispatchedAt: T + 5 })).toBeNull();
  });

  it('an early start is one more than the tolerance before the instant; on time, late and not started are not', () => {
    expect(startedEarlyBy(T, T - EARLY_START_TOLERANCE_MS - 1)).toBe(EARLY_START_TOLERANCE_MS + 1);
    expect(startedEarlyBy(T, T - 9_100)).toBe(9_100);
    expect(startedEarlyBy(T, T - EARLY_START_TOLERANCE_MS)).toBeNull();
    expect(startedEarlyBy(T, T)).toBeNull();
    expect(startedEarlyBy(T, T + 5_000)).toBeNull();
    expect(startedEarlyBy(T, null)).toBeNull();
  });
});
