import { TERMINAL_STATES } from '../run/run-state';
import type { RunState } from '../types';
import { estimatePercentile, histogramCount, mergeInto, record, type Histogram } from './histogram';
import { firstAttemptLateness, retryWait, startedEarlyBy, type TimedRun } from './lateness';

/**
 * Terminology of the statistics rollups (issue 13 item 2):
 *
 * - span: the width of a rollup bucket, a minute or an hour; a bucket starts at a multiple of it
 *   (epoch ms, UTC) and holds the runs that ENDED (finished_at) inside it.
 * - cell: what one bucket keeps for one task (or for the whole tenant, task 0): runs per ended
 *   state, the early starts (runs whose last attempt started more than EARLY_START_TOLERANCE_MS
 *   before its instant: a defect, issue 39) and three histograms — duration (finished − started),
 *   lateness (first attempt: scheduled → dispatched) and retry wait (scheduled → due of the last
 *   attempt).
 * - Cells are recomputed whole from the runs, never incremented, so computing one twice (two
 *   engines, a settle pass) gives the same row.
 */

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
/** Tenant-wide cells are stored under this task id. */
export const ALL_TASKS = 0;

export type EndedState = (typeof TERMINAL_STATES)[number];

/** The columns of an ended run a rollup reads. */
export interface EndedRun extends TimedRun {
  taskId: number;
  state: RunState;
  startedAt: number | null;
  finishedAt: number;
  /** The last attempt's instant when a dispatch back-off moved dueAt past it (runs.instant_at); null: dueAt is the instant. */
  instantAt: number | null;
}

export interface RollupCell {
  counts: Record<EndedState, number>;
  /** Runs whose last attempt started more than EARLY_START_TOLERANCE_MS before its instant. */
  earlyStarts: number;
  duration: Histogram;
  lateness: Histogram;
  retryWait: Histogram;
}

export function emptyCell(): RollupCell {
  return {
    counts: Object.fromEntries(TERMINAL_STATES.map((s) => [s, 0])) as Record<EndedState, number>,
    earlyStarts: 0,
    duration: new Map(),
    lateness: new Map(),
    retryWait: new Map(),
  };
}

function isEnded(state: RunState): state is EndedState {
  return (TERMINAL_STATES as readonly RunState[]).includes(state);
}

/** Counts one run into a cell; a run not in an ended state is not counted (false). */
export function addRun(cell: RollupCell, run: EndedRun): boolean {
  if (!isEnded(run.state)) return false;
  cell.counts[run.state]++;
  if (run.startedAt !== null) record(cell.duration, run.finishedAt - run.startedAt);
  if (startedEarly(run)) cell.earlyStarts++;
  const late = firstAttemptLateness(run);
  if (late !== null) record(cell.lateness, late);
  const waited = retryWait(run);
  if (waited !== null) record(cell.retryWait, waited);
  return true;
}

/**
 * Whether the run's last attempt started early: its executor-reported start more than the
 * tolerance before the attempt's instant (instantAt, else dueAt). The row keeps its last attempt
 * only; an earlier attempt's early start is counted by the engine when it ends
 * (baton_engine_runs_started_early_total, RUN_STARTED_EARLY).
 */
export function startedEarly(run: EndedRun): boolean {
  return startedEarlyBy(run.instantAt ?? run.dueAt, run.startedAt) !== null;
}

export function mergeCell(target: RollupCell, source: RollupCell): void {
  for (const s of TERMINAL_STATES) target.counts[s] += source.counts[s];
  target.earlyStarts += source.earlyStarts;
  mergeInto(target.duration, source.duration);
  mergeInto(target.lateness, source.lateness);
  mergeInto(target.retryWait, source.retryWait);
}

export function bucketStart(at: number, spanMs: number): number {
  return Math.floor(at / spanMs) * spanMs;
}

/**
 * The cells of `runs` at one span, keyed `${taskId}:${bucketStart}`, each task's and the
 * tenant's (ALL_TASKS). Runs not ended are left out.
 */
export function rollupRuns(runs: Iterable<EndedRun>, spanMs: number): Map<string, { taskId: number; bucketStart: number; cell: RollupCell }> {
  const cells = new Map<string, { taskId: number; bucketStart: number; cell: RollupCell }>();
  const cellOf = (taskId: number, start: number) => {
    const key = `${taskId}:${start}`;
    let entry = cells.get(key);
    if (!entry) cells.set(key, (entry = { taskId, bucketStart: start, cell: emptyCell() }));
    return entry.cell;
  };
  for (const run of runs) {
    if (!isEnded(run.state)) continue;
    const start = bucketStart(run.finishedAt, spanMs);
    addRun(cellOf(run.taskId, start), run);
    addRun(cellOf(ALL_TASKS, start), run);
  }
  return cells;
}

export interface DistributionEstimate {
  count: number;
  p50: number | null;
  p95: number | null;
}

export function estimate(hist: Histogram): DistributionEstimate {
  return { count: histogramCount(hist), p50: estimatePercentile(hist, 50), p95: estimatePercentile(hist, 95) };
}

/** SUCCEEDED / (SUCCEEDED + FAILED + TIMED_OUT), or null when none of those. */
export function successRate(counts: Record<EndedState, number>): number | null {
  const finished = counts.SUCCEEDED + counts.FAILED + counts.TIMED_OUT;
  return finished === 0 ? null : counts.SUCCEEDED / finished;
}
