import { describe, expect, it } from 'vitest';
import { attemptTimeline } from './timeline';

const T = 1_000_000;

describe('attemptTimeline', () => {
  it('reads in one order whatever the times, and flags a Started reported before Accepted with why', () => {
    const early = attemptTimeline({ scheduledAt: T, dispatchedAt: T + 5, acceptedAt: T + 9, startedAt: T + 7, finishedAt: T + 100 });
    const late = attemptTimeline({ scheduledAt: T, dispatchedAt: T + 5, acceptedAt: T + 9, startedAt: T + 12, finishedAt: T + 100 });
    expect(early.map((e) => e.step)).toEqual(['SCHEDULED', 'DISPATCHED', 'ACCEPTED', 'STARTED', 'FINISHED']);
    expect(late.map((e) => e.step)).toEqual(early.map((e) => e.step));
    expect(early.filter((e) => e.outOfOrder).map((e) => e.step)).toEqual(['STARTED']);
    expect(early[3].note).toContain('202');
    expect(early[3].clock).toBe('executor');
    expect(late.some((e) => e.outOfOrder)).toBe(false);
  });

  it('steps not reached have no time and are never out of order', () => {
    const pending = attemptTimeline({ scheduledAt: T, dispatchedAt: null, acceptedAt: null, startedAt: null, finishedAt: null });
    expect(pending.map((e) => [e.step, e.at, e.outOfOrder])).toEqual([
      ['SCHEDULED', T, false],
      ['DISPATCHED', null, false],
      ['ACCEPTED', null, false],
      ['STARTED', null, false],
      ['FINISHED', null, false],
    ]);
  });

  it('an attempt cancelled before its instant (sent ahead: handed over by the cancel) is in order, its end on the clock that decided it', () => {
    const cancelled = attemptTimeline({ scheduledAt: T + 10_000, dispatchedAt: T + 5, acceptedAt: T + 5, startedAt: null, finishedAt: T + 5, state: 'CANCELLED' });
    expect(cancelled.filter((e) => e.outOfOrder)).toEqual([]);
    expect(cancelled[4]).toMatchObject({ step: 'FINISHED', at: T + 5, clock: 'engine' });
    // Handed over before its instant and not ended: a dispatch before the plan is still flagged.
    const early = attemptTimeline({ scheduledAt: T + 10_000, dispatchedAt: T + 5, acceptedAt: null, startedAt: null, finishedAt: null, state: 'DISPATCHED' });
    expect(early.filter((e) => e.outOfOrder).map((e) => e.step)).toEqual(['DISPATCHED']);
  });

  it("a cancelled or skipped attempt's end is Baton's clock; an outcome's the executor's", () => {
    const ended = (state: 'CANCELLED' | 'SKIPPED' | 'SUCCEEDED') => attemptTimeline({ scheduledAt: T, dispatchedAt: T + 5, acceptedAt: T + 9, startedAt: T + 12, finishedAt: T + 100, state })[4].clock;
    expect([ended('CANCELLED'), ended('SKIPPED'), ended('SUCCEEDED')]).toEqual(['engine', 'engine', 'executor']);
  });

  it("an outcome's end is on the clock recorded with it: a timeout the engine decided is the engine's, one the executor reported (aborted at its deadline) the executor's", () => {
    const times = { scheduledAt: T, dispatchedAt: T + 5, acceptedAt: T + 9, startedAt: T + 12, finishedAt: T + 100 };
    const finished = (state: 'TIMED_OUT' | 'FAILED' | 'SUCCEEDED', finishedClock: 'engine' | 'executor' | null) => attemptTimeline({ ...times, state, finishedClock })[4].clock;
    expect(finished('TIMED_OUT', 'engine')).toBe('engine');
    expect(finished('TIMED_OUT', 'executor')).toBe('executor');
    // A lost executor's attempt failed by the engine, an end reported without a time.
    expect([finished('FAILED', 'engine'), finished('SUCCEEDED', 'engine')]).toEqual(['engine', 'engine']);
    // Not recorded (ended before Baton recorded it): the state says, as it always could for a cancel.
    expect([finished('TIMED_OUT', null), attemptTimeline({ ...times, state: 'CANCELLED', finishedClock: null })[4].clock]).toEqual(['executor', 'engine']);
  });
});
