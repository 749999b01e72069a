import { describe, expect, it } from 'vitest';
import { withTaskDefaults } from '../task/task-defaults';
import type { TaskDefinition } from '../types';
import { EDIT_REACHES_FIRES_AFTER_MS, PREPARED_FIRE_FIELDS, preparedFiresWithdrawnAfter, rewindForWithdrawn, settledByAbortAnswer, settledByCallback, settledBySweep } from './prepared-fires';

const NOW = 1_800_000_000_000;
const task: TaskDefinition = withTaskDefaults({ name: 'nightly', executorApp: 'billing', handler: 'invoice', trigger: { kind: 'FIXED_RATE', intervalMs: 1_000 }, params: { region: 'eu' } }, 'acme');

describe('preparedFiresWithdrawnAfter', () => {
  it('withdraws every fire whose instant has not come when the task is paused', () => {
    expect(preparedFiresWithdrawnAfter(task, { ...task, paused: true }, NOW)).toBe(NOW);
    // Paused in the same save as an edit: still every fire.
    expect(preparedFiresWithdrawnAfter(task, { ...task, paused: true, params: { region: 'us' } }, NOW)).toBe(NOW);
  });

  it('withdraws the fires due after the edit margin when a field a fire carries changes', () => {
    const edits: Partial<TaskDefinition>[] = [
      { params: { region: 'us' } },
      { trigger: { kind: 'FIXED_RATE', intervalMs: 2_000 } },
      { startAt: NOW + 60_000 },
      { endAt: NOW + 60_000 },
      { maxFires: 3 },
      { calendarName: 'holidays' },
      { priority: 5 },
      { executorApp: 'billing-v2' },
      { handler: 'invoice2' },
      { timeoutMs: 1_000 },
      { concurrencyPolicy: 'FORBID' },
      { fanOut: { mode: 'BROADCAST', shards: null, failWhen: 'ANY_SHARD_FAILS' } },
    ];
    expect(edits.map((e) => Object.keys(e)[0]).sort()).toEqual([...PREPARED_FIRE_FIELDS].sort());
    for (const edit of edits) expect(preparedFiresWithdrawnAfter(task, { ...task, ...edit }, NOW), JSON.stringify(edit)).toBe(NOW + EDIT_REACHES_FIRES_AFTER_MS);
  });

  it('leaves them alone for fields read when they apply, for a resume, and for an edit of a paused task', () => {
    for (const edit of [{ name: 'renamed' }, { group: 'ops' }, { misfireThresholdMs: 1 }, { startDeadlineMs: 1 }, { pauseAfterFailures: 3 }, { importedFrom: 'xxl-job:xxl_job/xxl_job_ job 1' }, { retry: { ...task.retry, maxAttempts: 5 } }]) {
      expect(preparedFiresWithdrawnAfter(task, { ...task, ...edit }, NOW), JSON.stringify(edit)).toBeNull();
    }
    expect(preparedFiresWithdrawnAfter({ ...task, paused: true }, task, NOW)).toBeNull();
    expect(preparedFiresWithdrawnAfter({ ...task, paused: true }, { ...task, paused: true, params: { region: 'us' } }, NOW)).toBeNull();
    expect(preparedFiresWithdrawnAfter(task, { ...task }, NOW)).toBeNull();
  });
});

describe('rewindForWithdrawn', () => {
  it('gives the withdrawn instants back: fewer fires counted, the next fire the earliest of them', () => {
    expect(rewindForWithdrawn({ fireCount: 10, nextFireAt: NOW + 3_000 }, [NOW + 2_000, NOW + 1_500])).toEqual({ fireCount: 8, nextFireAt: NOW + 1_500 });
  });

  it('plans again a one-shot or a fixed delay whose next fire was not set', () => {
    expect(rewindForWithdrawn({ fireCount: 1, nextFireAt: null }, [NOW + 5_000])).toEqual({ fireCount: 0, nextFireAt: NOW + 5_000 });
  });

  it('keeps an earlier next fire, never counts below zero, and changes nothing when nothing was withdrawn', () => {
    expect(rewindForWithdrawn({ fireCount: 1, nextFireAt: NOW }, [NOW + 1_000, NOW + 2_000])).toEqual({ fireCount: 0, nextFireAt: NOW });
    const cursor = { fireCount: 4, nextFireAt: NOW };
    expect(rewindForWithdrawn(cursor, [])).toBe(cursor);
  });
});

describe('settling a withdrawn fire its executor may hold', () => {
  it('the abort answer: QUEUED never started, RUNNING started, anything else nothing yet', () => {
    expect(settledByAbortAnswer({ status: 202, state: 'QUEUED' })).toBe('NOT_STARTED');
    expect(settledByAbortAnswer({ status: 202, state: 'RUNNING' })).toBe('STARTED');
    // FINISHED may be one another engine's abort dropped: its callback tells.
    expect(settledByAbortAnswer({ status: 404, state: 'FINISHED' })).toBeNull();
    expect(settledByAbortAnswer({ status: 404, state: 'UNKNOWN' })).toBeNull();
    expect(settledByAbortAnswer({ status: 200, state: null })).toBeNull();
    expect(settledByAbortAnswer(null)).toBeNull();
  });

  it('a callback: ABORTED without a start never started; anything else started', () => {
    expect(settledByCallback({ outcome: 'ABORTED' })).toBe('NOT_STARTED');
    expect(settledByCallback({ outcome: 'ABORTED', startedAt: 5 })).toBe('STARTED');
    expect(settledByCallback({ outcome: 'SUCCEEDED' })).toBe('STARTED');
    expect(settledByCallback({ startedAt: 5 })).toBe('STARTED');
  });

  it('the sweep: proven unstarted under the sent-ahead lease, else taken as run a grace after its deadline', () => {
    const rule = { leaseMs: 7_000, settleAfterMs: 30_000 };
    const silent = { keepsLease: true, heartbeatAt: 1_000 };
    expect(settledBySweep({ instant: 10_000, deadlineAt: null, executor: silent }, { ...rule, now: 39_999 })).toBeNull();
    expect(settledBySweep({ instant: 10_000, deadlineAt: null, executor: silent }, { ...rule, now: 40_000 })).toBe('NOT_STARTED');
    // Within the lease it may have started; an executor of protocol 2 keeps no lease.
    expect(settledBySweep({ instant: 10_000, deadlineAt: 100_000, executor: { keepsLease: true, heartbeatAt: 3_500 } }, { ...rule, now: 40_000 })).toBeNull();
    expect(settledBySweep({ instant: 10_000, deadlineAt: 100_000, executor: { ...silent, keepsLease: false } }, { ...rule, now: 129_999 })).toBeNull();
    expect(settledBySweep({ instant: 10_000, deadlineAt: 100_000, executor: { ...silent, keepsLease: false } }, { ...rule, now: 130_000 })).toBe('UNKNOWN');
    expect(settledBySweep({ instant: 10_000, deadlineAt: null, executor: null }, { ...rule, now: 40_000 })).toBe('UNKNOWN');
  });
});
