import { describe, expect, it } from 'vitest';
import { resolveMisfire } from './quartz-misfire';

describe('resolveMisfire', () => {
  it.each([
    ['CRON', 0, null, 'FIRE_ONCE_NOW', false],
    ['CRON', 1, null, 'FIRE_ONCE_NOW', false],
    ['CRON', 2, null, 'SKIP', false],
    ['CRON', -1, null, 'FIRE_ALL_MISSED', false],
    ['CAL_INT', 0, null, 'FIRE_ONCE_NOW', false],
    ['CAL_INT', 2, null, 'SKIP', false],
    ['SIMPLE', 0, 0, 'FIRE_ONCE_NOW', false], // smart, one fire: FIRE_NOW
    ['SIMPLE', 0, -1, 'SKIP', false], // smart, forever: RESCHEDULE_NEXT_WITH_REMAINING_COUNT
    ['SIMPLE', 0, 10, 'FIRE_ONCE_NOW', true], // smart, a count: RESCHEDULE_NOW_WITH_EXISTING_REPEAT_COUNT
    ['SIMPLE', 1, 0, 'FIRE_ONCE_NOW', false],
    ['SIMPLE', 1, 10, 'FIRE_ONCE_NOW', true], // FIRE_NOW on a repeating trigger: RESCHEDULE_NOW_WITH_REMAINING_REPEAT_COUNT
    ['SIMPLE', 2, 10, 'FIRE_ONCE_NOW', true],
    ['SIMPLE', 3, 10, 'FIRE_ONCE_NOW', true],
    ['SIMPLE', 4, 10, 'SKIP', false],
    ['SIMPLE', 5, -1, 'SKIP', false],
    ['SIMPLE', 5, 10, 'SKIP', true],
    ['SIMPLE', -1, 10, 'FIRE_ALL_MISSED', false],
    ['SIMPLE', 9, 10, 'FIRE_ONCE_NOW', true],
  ] as const)('%s instruction %i (repeat count %s) → %s', (type, instruction, repeatCount, policy, differs) => {
    const resolved = resolveMisfire(type, instruction, repeatCount);
    expect(resolved.policy).toBe(policy);
    expect(resolved.difference !== null).toBe(differs);
  });
});
