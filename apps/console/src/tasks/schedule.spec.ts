import { describe, expect, it } from 'vitest';
import type { Schedule } from '@baton/domain';
import { neverFiresProblem, nextFireAtFor } from './schedule';

const NOW = Date.UTC(2026, 2, 1, 0, 0, 0);
const base: Omit<Schedule, 'trigger'> = { startAt: null, endAt: null, maxFires: null, fireCount: 0, calendar: null, createdAt: NOW };
const fresh = { nextFireAt: null, kindBefore: null, chainUnderWay: false };

describe('next fire time of a saved task', () => {
  it('is the first cron time from now', () => {
    const s: Schedule = { ...base, trigger: { kind: 'CRON', expression: '0 0 2 * * *', timeZone: 'UTC' } };
    expect(nextFireAtFor(s, NOW, fresh)).toBe(Date.UTC(2026, 2, 1, 2));
  });

  it('is now for a FIXED_RATE anchored at creation, and on the start grid otherwise', () => {
    expect(nextFireAtFor({ ...base, trigger: { kind: 'FIXED_RATE', intervalMs: 60_000 } }, NOW, fresh)).toBe(NOW);
    const s: Schedule = { ...base, startAt: NOW - 90_000, trigger: { kind: 'FIXED_RATE', intervalMs: 60_000 } };
    expect(nextFireAtFor(s, NOW, fresh)).toBe(NOW + 30_000);
  });

  it('fires a FIXED_DELAY at its start time, or now when that has passed', () => {
    const trigger = { kind: 'FIXED_DELAY', delayMs: 5_000 } as const;
    expect(nextFireAtFor({ ...base, trigger, startAt: NOW + 60_000 }, NOW, fresh)).toBe(NOW + 60_000);
    expect(nextFireAtFor({ ...base, trigger, startAt: NOW - 60_000 }, NOW, fresh)).toBe(NOW);
    expect(nextFireAtFor({ ...base, trigger, createdAt: NOW - 3_600_000 }, NOW, fresh)).toBe(NOW);
  });

  it('keeps the engine-placed next fire of a FIXED_DELAY that has fired', () => {
    const s: Schedule = { ...base, fireCount: 3, trigger: { kind: 'FIXED_DELAY', delayMs: 5_000 } };
    expect(nextFireAtFor(s, NOW, { nextFireAt: NOW + 1234, kindBefore: 'FIXED_DELAY', chainUnderWay: false })).toBe(NOW + 1234);
  });

  it('leaves a FIXED_DELAY chain under way to its run, whatever its trigger became', () => {
    const newDelay: Schedule = { ...base, fireCount: 0, trigger: { kind: 'FIXED_DELAY', delayMs: 9_000 } };
    expect(nextFireAtFor(newDelay, NOW, { nextFireAt: null, kindBefore: 'FIXED_DELAY', chainUnderWay: true })).toBeNull();
    expect(nextFireAtFor({ ...newDelay, fireCount: 3 }, NOW, { nextFireAt: null, kindBefore: 'FIXED_DELAY', chainUnderWay: true })).toBeNull();
    // Waiting for its next fire, with no run under way: a new delay starts the chain again now.
    expect(nextFireAtFor(newDelay, NOW, { nextFireAt: NOW + 1234, kindBefore: 'FIXED_DELAY', chainUnderWay: false })).toBe(NOW);
  });

  it('starts an ended FIXED_DELAY chain again, unless maxFires still says it is over', () => {
    const ended: Schedule = { ...base, fireCount: 3, maxFires: 5, trigger: { kind: 'FIXED_DELAY', delayMs: 5_000 } };
    expect(nextFireAtFor(ended, NOW, { nextFireAt: null, kindBefore: 'FIXED_DELAY', chainUnderWay: false })).toBe(NOW);
    const over = { ...ended, maxFires: 3 };
    expect(nextFireAtFor(over, NOW, { nextFireAt: null, kindBefore: 'FIXED_DELAY', chainUnderWay: false })).toBeNull();
    expect(neverFiresProblem(over, null, NOW)).toMatchObject({ field: 'maxFires' });
  });

  it('is null for MANUAL, and that is fine', () => {
    const s: Schedule = { ...base, trigger: { kind: 'MANUAL' } };
    expect(nextFireAtFor(s, NOW, fresh)).toBeNull();
    expect(neverFiresProblem(s, null, NOW)).toBeNull();
  });
});

describe('a task that could never fire', () => {
  it('names the one-shot in the past', () => {
    const s: Schedule = { ...base, trigger: { kind: 'ONCE', at: NOW - 1 } };
    expect(neverFiresProblem(s, nextFireAtFor(s, NOW, fresh), NOW)).toMatchObject({ field: 'trigger.at' });
  });

  it('names an end time already passed', () => {
    const s: Schedule = { ...base, endAt: NOW - 1, trigger: { kind: 'CRON', expression: '0 * * * * *', timeZone: 'UTC' } };
    expect(neverFiresProblem(s, nextFireAtFor(s, NOW, fresh), NOW)).toMatchObject({ field: 'endAt' });
  });

  it('names maxFires already reached', () => {
    const s: Schedule = { ...base, maxFires: 2, fireCount: 2, trigger: { kind: 'FIXED_RATE', intervalMs: 1000 } };
    expect(neverFiresProblem(s, nextFireAtFor(s, NOW, fresh), NOW)).toMatchObject({ field: 'maxFires' });
  });

  it('is no problem when there is a next fire', () => {
    const s: Schedule = { ...base, trigger: { kind: 'ONCE', at: NOW + 1 } };
    expect(neverFiresProblem(s, nextFireAtFor(s, NOW, fresh), NOW)).toBeNull();
  });
});
