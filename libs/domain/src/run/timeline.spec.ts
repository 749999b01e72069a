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
});
