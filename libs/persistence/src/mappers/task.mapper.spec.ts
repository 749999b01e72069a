import { describe, expect, it } from 'vitest';
import type { TaskDefinition, Trigger } from '@baton/domain';
import { TaskEntity } from '../entities';
import { taskDefinitionToColumns, taskEntityToDefinition, triggerFromColumns, triggerToColumns } from './task.mapper';

const base: TaskDefinition = {
  tenantId: 'acme',
  name: 'nightly',
  group: 'reports',
  executorApp: 'billing',
  handler: 'close',
  params: { a: [1, 2, { b: null }] },
  trigger: { kind: 'CRON', expression: '0 0 2 * * *', timeZone: 'Europe/Paris' },
  startAt: 1_700_000_000_000,
  endAt: null,
  maxFires: 10,
  misfirePolicy: 'SKIP',
  misfireThresholdMs: 5000,
  priority: 3,
  concurrencyPolicy: 'FORBID',
  timeoutMs: 60_000,
  startDeadlineMs: 10_000,
  onStartLate: 'GIVE_UP',
  retry: { maxAttempts: 3, backoffBaseMs: 1000, backoffMaxMs: 60_000, jitter: 0.25 },
  calendarName: 'holidays',
  alarms: { types: ['FAILED', 'TIMEOUT'], silenceMs: 60_000 },
  paused: true,
  pauseAfterFailures: 3,
  fanOut: { mode: 'SHARDED', shards: 8, failWhen: 'ALL_SHARDS_FAIL' },
  concurrency: { key: 'customer.id', limit: 2, onLimit: 'CANCEL_OLDEST' },
  rateLimit: { key: 'customer.id', perSecond: 0.5, burst: 3 },
  debounce: { key: 'customer.id', quietMs: 2000, maxWaitMs: 20_000 },
  throttle: null,
  importedFrom: 'xxl-job:xxl_job/xxl_job_ job 7',
};

describe('task mapper', () => {
  it.each<Trigger>([
    { kind: 'MANUAL' },
    { kind: 'FIXED_RATE', intervalMs: 1500 },
    { kind: 'FIXED_DELAY', delayMs: 2500 },
    { kind: 'CRON', expression: '*/5 * * * * *', timeZone: 'UTC' },
    { kind: 'ONCE', at: 1_800_000_000_000 },
  ])('round-trips the trigger %o through its columns', (trigger) => {
    expect(triggerFromColumns(triggerToColumns(trigger))).toEqual(trigger);
  });

  it('round-trips a definition through the row', () => {
    const row = Object.assign(new TaskEntity(), taskDefinitionToColumns(base, 7), { id: 1, fireCount: 0 });
    expect(row.calendarId).toBe(7);
    expect(row.retryJitterPermille).toBe(250);
    expect(row.intervalMs).toBeNull();
    expect(taskEntityToDefinition(row, 'holidays')).toEqual(base);
  });

  it('refuses a row whose columns do not fit its trigger kind', () => {
    expect(() =>
      triggerFromColumns({ triggerKind: 'CRON', cronExpression: null, timeZone: 'UTC', cronRepeatedTime: null, cronSkippedTime: null, intervalMs: null, onceAt: null }),
    ).toThrow(/cron_expression/);
  });

  it('stores a daylight-saving policy in its column and a default as null, and reads both back', () => {
    const columns = triggerToColumns({ kind: 'CRON', expression: '0 30 2 * * *', timeZone: 'Europe/London', repeatedTime: 'TWICE', skippedTime: 'SKIP' });
    expect(columns).toMatchObject({ cronRepeatedTime: 'TWICE', cronSkippedTime: null });
    expect(triggerFromColumns(columns)).toEqual({ kind: 'CRON', expression: '0 30 2 * * *', timeZone: 'Europe/London', repeatedTime: 'TWICE' });
  });
});
