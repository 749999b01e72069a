import type { EntityManager } from 'typeorm';
import { ALL_TASKS, emptyCell, HOUR_MS, mergeCell, MINUTE_MS, rollupRuns, type RollupCell } from '@baton/domain';
import { readEndedRuns, readRollups, rolledUntilOf } from '@baton/persistence';

/** Most raw runs read for the not-yet-rolled tail of a window (normally the last ~30 s). */
export const MAX_TAIL_RUNS = 100_000;

export interface WindowCells {
  /** Cells by bucket start at `spanMs`, over the window's runs that ended in [from, to]. */
  cells: Map<number, RollupCell>;
  /** True when the tail had more than MAX_TAIL_RUNS runs and only the first were counted. */
  sampled: boolean;
}

/** The rollup span a window of this length reads: minutes up to 6 h, hours above. */
export function spanFor(windowMs: number): number {
  return windowMs > 6 * HOUR_MS ? HOUR_MS : MINUTE_MS;
}

/**
 * The statistics cells of a window: rollup rows below the tenant's rolled point (history
 * cursor) and, above it, the raw runs rolled up here the same way (libs/domain rollupRuns).
 * `from` must be a multiple of `spanMs`. An hour row holds exactly the minutes rolled so far,
 * so whole-hour reads stop at the rolled point like minute reads do.
 */
export async function readWindowCells(manager: EntityManager, input: { tenantId: string; taskId: number | null; from: number; to: number; spanMs: number }): Promise<WindowCells> {
  const taskId = input.taskId ?? ALL_TASKS;
  const rolled = Math.max(input.from, Math.min(await rolledUntilOf(manager, input.tenantId), input.to + 1));
  const cells = new Map<number, RollupCell>();
  const add = (start: number, cell: RollupCell) => {
    const existing = cells.get(start);
    if (existing) mergeCell(existing, cell);
    else cells.set(start, cell);
  };
  if (rolled > input.from) {
    for (const row of await readRollups(manager, { tenantId: input.tenantId, taskId, spanMs: input.spanMs, from: input.from, to: rolled })) add(row.bucketStart, row.cell);
  }
  const tail = await readEndedRuns(manager, { tenantId: input.tenantId, taskId: input.taskId, from: rolled, to: input.to + 1, limit: MAX_TAIL_RUNS + 1 });
  const sampled = tail.length > MAX_TAIL_RUNS;
  for (const { taskId: cellTask, bucketStart: start, cell } of rollupRuns(sampled ? tail.slice(0, MAX_TAIL_RUNS) : tail, input.spanMs).values()) {
    if (cellTask === taskId) add(start, cell);
  }
  return { cells, sampled };
}

/** All cells merged into one. */
export function mergeAll(cells: Iterable<RollupCell>): RollupCell {
  const total = emptyCell();
  for (const cell of cells) mergeCell(total, cell);
  return total;
}
