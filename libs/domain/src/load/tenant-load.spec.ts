import { describe, expect, it } from 'vitest';
import { backlogAlarmStep, byOldestDue, executorLoad, loadCount, subtractCount } from './tenant-load';

describe('tenant load', () => {
  it('reads a count taken with LIMIT cap + 1 as capped', () => {
    expect(loadCount(10, 10)).toEqual({ count: 10, capped: false });
    expect(loadCount(11, 10)).toEqual({ count: 10, capped: true });
    expect(subtractCount({ count: 10, capped: true }, 12)).toEqual({ count: 0, capped: true });
  });

  it("an executor's load leaves out the runs sent ahead to it that wait for their instant, never below 0", () => {
    expect(executorLoad(16, 15)).toBe(1); // idle but for one: the rest wait for their instants
    expect(executorLoad(16, 0)).toBe(16);
    expect(executorLoad(2, 5)).toBe(0); // its heartbeat was before the last ones were sent
  });

  it('orders the oldest due first, then the tenants with nothing due by id', () => {
    const rows = [
      { tenantId: 'c', oldestDueAt: null },
      { tenantId: 'b', oldestDueAt: 200 },
      { tenantId: 'a', oldestDueAt: null },
      { tenantId: 'd', oldestDueAt: 100 },
    ];
    expect([...rows].sort(byOldestDue).map((r) => r.tenantId)).toEqual(['d', 'b', 'a', 'c']);
  });

  it('raises once per episode, ends it below half the threshold, and is off at 0', () => {
    const now = 100_000;
    expect(backlogAlarmStep({ oldestDueAt: now - 60_001, thresholdMs: 60_000, lateSince: null, now })).toBe('RAISE');
    expect(backlogAlarmStep({ oldestDueAt: now - 60_000, thresholdMs: 60_000, lateSince: null, now })).toBe(null);
    expect(backlogAlarmStep({ oldestDueAt: null, thresholdMs: 60_000, lateSince: null, now })).toBe(null);
    expect(backlogAlarmStep({ oldestDueAt: now - 90_000, thresholdMs: 60_000, lateSince: now - 1, now })).toBe(null);
    expect(backlogAlarmStep({ oldestDueAt: now - 40_000, thresholdMs: 60_000, lateSince: now - 1, now })).toBe(null); // hysteresis
    expect(backlogAlarmStep({ oldestDueAt: now - 30_000, thresholdMs: 60_000, lateSince: now - 1, now })).toBe('CLEAR');
    expect(backlogAlarmStep({ oldestDueAt: null, thresholdMs: 60_000, lateSince: now - 1, now })).toBe('CLEAR');
    expect(backlogAlarmStep({ oldestDueAt: now - 90_000, thresholdMs: 0, lateSince: null, now })).toBe(null);
    expect(backlogAlarmStep({ oldestDueAt: now - 90_000, thresholdMs: 0, lateSince: now - 1, now })).toBe('CLEAR');
  });
});
