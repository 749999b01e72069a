import { describe, expect, it } from 'vitest';
import { ALARM_TYPES } from '../types';
import { taskDefaults, withTaskDefaults } from './task-defaults';
import { validateTask } from './validate-task';

describe('taskDefaults', () => {
  it('gives the documented defaults', () => {
    expect(taskDefaults()).toEqual({
      group: 'default',
      params: {},
      startAt: null,
      endAt: null,
      maxFires: null,
      misfirePolicy: 'FIRE_ONCE_NOW',
      misfireThresholdMs: 5_000,
      priority: 0,
      concurrencyPolicy: 'ALLOW',
      timeoutMs: 300_000,
      startDeadlineMs: 10_000,
      onStartLate: 'ALARM',
      retry: { maxAttempts: 1, backoffBaseMs: 1_000, backoffMaxMs: 60_000, jitter: 0.2 },
      calendarName: null,
      alarms: { types: [...ALARM_TYPES], silenceMs: 60_000 },
      paused: false,
      pauseAfterFailures: null,
      concurrency: null,
      rateLimit: null,
      debounce: null,
      throttle: null,
      fanOut: { mode: 'SINGLE', shards: null, failWhen: 'ANY_SHARD_FAILS' },
      importedFrom: null,
    });
  });

  it('returns fresh objects, so a caller changing one cannot change the next', () => {
    const a = taskDefaults();
    a.retry.maxAttempts = 9;
    a.alarms.types.pop();
    expect(taskDefaults().retry.maxAttempts).toBe(1);
    expect(taskDefaults().alarms.types).toHaveLength(ALARM_TYPES.length);
  });

  it('passes its own validation', () => {
    const input = { ...taskDefaults(), name: 'n', executorApp: 'a', handler: 'h', trigger: { kind: 'MANUAL' } };
    expect(validateTask(input)).toEqual([]);
  });
});

describe('withTaskDefaults', () => {
  const input = { name: 'n', executorApp: 'app', handler: 'h', trigger: { kind: 'MANUAL' }, priority: 5 };

  it('fills omitted fields and keeps given ones, with the tenant from the caller', () => {
    const task = withTaskDefaults({ ...input, tenantId: 'evil' }, 'acme');
    expect(task.tenantId).toBe('acme');
    expect(task.priority).toBe(5);
    expect(task.timeoutMs).toBe(300_000);
    expect(task.trigger).toEqual({ kind: 'MANUAL' });
  });

  it('fills the omitted members of a partial retry policy and alarm settings', () => {
    const task = withTaskDefaults({ ...input, retry: { maxAttempts: 3 }, alarms: { silenceMs: 0 } }, 'acme');
    expect(task.retry).toEqual({ maxAttempts: 3, backoffBaseMs: 1_000, backoffMaxMs: 60_000, jitter: 0.2 });
    expect(task.alarms).toEqual({ types: [...ALARM_TYPES], silenceMs: 0 });
  });

  it('treats an explicit undefined as omitted but keeps an explicit null', () => {
    const task = withTaskDefaults({ ...input, group: undefined, params: null }, 'acme');
    expect(task.group).toBe('default');
    expect(task.params).toBeNull();
  });
});
