import { describe, expect, it } from 'vitest';
import { decodeHistogram, encodeHistogram, estimatePercentile, histogramCount } from './histogram';
import { EARLY_START_TOLERANCE_MS } from './lateness';
import { ALL_TASKS, HOUR_MS, MINUTE_MS, emptyCell, estimate, mergeCell, rollupRuns, startedEarly, successRate, type EndedRun } from './run-rollup';

const T = Date.UTC(2026, 10, 25, 10, 0, 0);
const run = (over: Partial<EndedRun>): EndedRun => ({
  taskId: 1,
  state: 'SUCCEEDED',
  attempt: 1,
  scheduledAt: T,
  dueAt: T,
  dispatchedAt: T + 5,
  startedAt: T + 10,
  finishedAt: T + 110,
  instantAt: null,
  ...over,
});

describe('run rollups', () => {
  it('keys a run by the minute it ended in, under its task and under the tenant', () => {
    const cells = rollupRuns([run({ finishedAt: T + 59_999 }), run({ finishedAt: T + 60_000 }), run({ taskId: 2, finishedAt: T + 1 })], MINUTE_MS);
    expect([...cells.keys()].sort()).toEqual([`0:${T}`, `0:${T + 60_000}`, `1:${T}`, `1:${T + 60_000}`, `2:${T}`].sort());
    expect(cells.get(`${ALL_TASKS}:${T}`)!.cell.counts.SUCCEEDED).toBe(2);
    expect(cells.get(`1:${T}`)!.cell.counts.SUCCEEDED).toBe(1);
  });

  it('leaves out runs not ended (a RETRY_WAIT row carries its last attempt’s finished_at)', () => {
    const cells = rollupRuns([run({ state: 'RETRY_WAIT' }), run({ state: 'ACCEPTED' })], MINUTE_MS);
    expect(cells.size).toBe(0);
  });

  it('counts a retried run’s first attempt’s lateness (firstDispatchedAt): a task whose runs all retried has a lateness, not "— / —" (issue 24)', () => {
    const cells = rollupRuns([run({ attempt: 2, dueAt: T + 1_840, dispatchedAt: T + 1_845, firstDispatchedAt: T + 30, state: 'SUCCEEDED' })], HOUR_MS);
    const { cell } = cells.get(`${ALL_TASKS}:${T}`)!;
    expect(histogramCount(cell.lateness)).toBe(1);
    expect(estimatePercentile(cell.lateness, 95)).toBeLessThan(1_000);
    expect(histogramCount(cell.retryWait)).toBe(1);
  });

  it('counts lateness on first attempts only and the backoff of retried runs apart', () => {
    const cells = rollupRuns(
      [
        run({ dispatchedAt: T + 40 }),
        run({ attempt: 3, dueAt: T + 2_000, dispatchedAt: T + 2_010, state: 'FAILED' }),
        run({ state: 'SKIPPED', dispatchedAt: null, startedAt: null }),
      ],
      HOUR_MS,
    );
    const { cell } = cells.get(`${ALL_TASKS}:${T}`)!;
    expect(cell.counts).toEqual({ SUCCEEDED: 1, FAILED: 1, TIMED_OUT: 0, CANCELLED: 0, SKIPPED: 1 });
    expect(histogramCount(cell.lateness)).toBe(1);
    expect(estimatePercentile(cell.lateness, 50)).toBeGreaterThanOrEqual(40);
    expect(estimatePercentile(cell.lateness, 50)).toBeLessThanOrEqual(50);
    expect(histogramCount(cell.retryWait)).toBe(1);
    expect(estimatePercentile(cell.retryWait, 50)).toBeGreaterThanOrEqual(2_000);
    expect(histogramCount(cell.duration)).toBe(2);
    expect(successRate(cell.counts)).toBe(0.5);
  });

  it('an early start: the last attempt started more than the tolerance before its instant (dueAt, or instantAt when a back-off moved dueAt)', () => {
    const early = EARLY_START_TOLERANCE_MS + 1;
    expect(startedEarly(run({ startedAt: T - early }))).toBe(true);
    expect(startedEarly(run({ startedAt: T - EARLY_START_TOLERANCE_MS }))).toBe(false);
    expect(startedEarly(run({ startedAt: T + 5_000 }))).toBe(false);
    expect(startedEarly(run({ state: 'SKIPPED', startedAt: null }))).toBe(false);
    // Refused and deferred: dueAt is when it may be sent again, instantAt when it may start.
    expect(startedEarly(run({ dueAt: T + 9_000, instantAt: T, startedAt: T + 404 }))).toBe(false);
    expect(startedEarly(run({ dueAt: T + 404, instantAt: T + 9_600, startedAt: T + 404 }))).toBe(true);
    // A retry attempt's instant is its own dueAt (after the backoff), not the first scheduledAt.
    expect(startedEarly(run({ attempt: 2, dueAt: T + 2_000, startedAt: T + 1_000 }))).toBe(true);
  });

  it('counts early starts per cell, under the task and the tenant; a run not ended is not counted', () => {
    const cells = rollupRuns(
      [
        run({ startedAt: T - 9_100 }),
        run({ taskId: 2, dueAt: T + 5_000, instantAt: T + 5_000, startedAt: T + 1, finishedAt: T + 100 }),
        run({ startedAt: T + 3 }),
        run({ state: 'RETRY_WAIT', startedAt: T - 9_100 }),
      ],
      MINUTE_MS,
    );
    expect(cells.get(`${ALL_TASKS}:${T}`)!.cell.earlyStarts).toBe(2);
    expect(cells.get(`1:${T}`)!.cell.earlyStarts).toBe(1);
    expect(cells.get(`2:${T}`)!.cell.earlyStarts).toBe(1);
    expect(emptyCell().earlyStarts).toBe(0);
  });

  it('merges minute cells into the same figures as one hour cell of the same runs', () => {
    const runs = Array.from({ length: 600 }, (_, i) =>
      run({ finishedAt: T + i * 6_000, startedAt: T + i * 6_000 - (i % 97) * 13, state: i % 10 === 0 ? 'FAILED' : 'SUCCEEDED', dispatchedAt: T + (i % 31), dueAt: T + i * 6_000 - (i % 7) * 10 }),
    );
    const hour = rollupRuns(runs, HOUR_MS).get(`${ALL_TASKS}:${T}`)!.cell;
    const merged = emptyCell();
    for (const { taskId, cell } of rollupRuns(runs, MINUTE_MS).values()) if (taskId === ALL_TASKS) mergeCell(merged, cell);
    expect(merged.counts).toEqual(hour.counts);
    expect(hour.earlyStarts).toBeGreaterThan(0);
    expect(merged.earlyStarts).toBe(hour.earlyStarts);
    expect(encodeHistogram(merged.duration)).toBe(encodeHistogram(hour.duration));
    expect(estimate(merged.lateness)).toEqual(estimate(hour.lateness));
    expect(decodeHistogram(encodeHistogram(hour.lateness))).toEqual(hour.lateness);
    expect(successRate(hour.counts)).toBeCloseTo(540 / 600);
  });

  it('has no success rate without a finished run', () => {
    expect(successRate(emptyCell().counts)).toBeNull();
  });
});
