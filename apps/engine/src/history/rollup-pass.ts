import type { DataSource, EntityManager } from 'typeorm';
import { bucketStart, emptyCell, HOUR_MS, mergeCell, MINUTE_MS, rollupRuns, type EndedRun, type RollupCell } from '@baton/domain';
import { advanceHistoryCursor, inTransaction, nextEndAfter, readEndedRuns, readRollups, replaceRollups, type HistoryCursor } from '@baton/persistence';
import { LostHistoryLeaseError } from './lost-history-lease-error';

/**
 * A minute is first rolled up this long after it ended: an engine writes a run's finished_at
 * before its transaction commits, so an end may become visible a little after the instant it
 * carries.
 */
export const ROLL_LAG_MS = 15_000;
/**
 * …and rolled up again this long after, to take in ends committed later still (an executor's
 * callback retried after an engine outage carries the handler's own end time). An end committed
 * later than this is not in the statistics; its run is still listed. Runs are purged only below
 * this point, so nothing is purged before it was counted.
 */
export const SETTLE_LAG_MS = 5 * 60_000;
/** Runs read per chunk (one transaction): a chunk shrinks from 6 hours down to a minute to stay under it. */
export const MAX_RUNS_PER_CHUNK = 20_000;
/** Runs rolled per tenant per pass: bounded work; a backlog (a new cursor over old runs) goes on in the next pass at once. */
export const MAX_RUNS_PER_PASS = 200_000;
const CHUNK_HOURS = 6;

/** What one rollup pass of a tenant did. */
export interface RollupReport {
  chunks: number;
  runs: number;
  hours: number;
  /** True when the pass stopped at its bound with minutes left to roll. */
  more: boolean;
  /** Where the cursor's settled point stands after the pass (the purge stops below it). */
  settledUntil: number;
}

type CursorField = 'rolled_until' | 'settled_until';

/**
 * Rolls a tenant's ended runs into minute rows and hour rows: every minute once after
 * ROLL_LAG_MS and again after SETTLE_LAG_MS (once only, for minutes already past the settle
 * lag: a backlog). Runs are read in chunks of whole hours where the cursor allows (the hour rows
 * then come from the same runs), else of minutes (the hour rows are then recomputed from their
 * minute rows). Each chunk is one transaction: delete-and-insert of its rows and the cursor's
 * move, guarded by the lease — an engine that lost the tenant to another rolls its chunk back.
 */
export async function rollupTenant(dataSource: DataSource, worker: string, cursor: HistoryCursor, now: number, pace: () => Promise<void> = async () => undefined): Promise<RollupReport> {
  const tenantId = cursor.tenantId;
  const report: RollupReport = { chunks: 0, runs: 0, hours: 0, more: false, settledUntil: cursor.settledUntil };
  const partialHours = new Set<number>();
  const rollTo = bucketStart(now - ROLL_LAG_MS, MINUTE_MS);
  const settleTo = bucketStart(now - SETTLE_LAG_MS, MINUTE_MS);
  let { rolledUntil, settledUntil } = cursor;
  const advance = async (em: EntityManager, to: Partial<Record<CursorField, number>>) => {
    if (!(await advanceHistoryCursor(em, tenantId, worker, to))) throw new LostHistoryLeaseError(tenantId);
  };
  if (rolledUntil === 0) {
    // A new cursor starts at the tenant's oldest end, not at the epoch.
    const first = await nextEndAfter(dataSource.manager, tenantId, 0);
    rolledUntil = settledUntil = first === null ? settleTo : bucketStart(first, HOUR_MS);
    await advance(dataSource.manager, { rolled_until: rolledUntil, settled_until: settledUntil });
  }

  /** Rolls [from, to) chunk by chunk; `settles`: the minutes count as settled too. Returns where it stopped. */
  const pass = async (from: number, to: number, fields: readonly CursorField[]): Promise<number> => {
    let at = from;
    while (at < to) {
      if (report.runs >= MAX_RUNS_PER_PASS) {
        report.more = true;
        return at;
      }
      const next = await nextEndAfter(dataSource.manager, tenantId, at);
      if (next === null || next >= to) {
        await advance(dataSource.manager, Object.fromEntries(fields.map((f) => [f, to])));
        return to;
      }
      await pace();
      // Nothing ended between `at` and `next`: the chunk may start at next's hour when that is not before `at`.
      const hour = bucketStart(next, HOUR_MS);
      const start = hour >= at ? hour : bucketStart(next, MINUTE_MS);
      const end = await inTransaction(dataSource, async (em) => {
        let end = Math.min(to, hour + CHUNK_HOURS * HOUR_MS);
        let runs: EndedRun[];
        for (;;) {
          runs = await readEndedRuns(em, { tenantId, from: start, to: end, limit: MAX_RUNS_PER_CHUNK + 1 });
          if (runs.length <= MAX_RUNS_PER_CHUNK || end - start <= MINUTE_MS) break;
          const span = end - start > HOUR_MS ? HOUR_MS : MINUTE_MS;
          end = start + Math.max(span, bucketStart((end - start) / 2, span));
        }
        // One minute with more ends than a chunk holds: read it whole.
        if (runs.length > MAX_RUNS_PER_CHUNK) runs = await readEndedRuns(em, { tenantId, from: start, to: end });
        await replaceRollups(em, { tenantId, spanMs: MINUTE_MS, from: start, to: end, rows: [...rollupRuns(runs, MINUTE_MS).values()] });
        // Hours wholly inside the chunk get their rows from these runs; the others from their minutes, after.
        const whole = (h: number) => h >= start && h + HOUR_MS <= end;
        const hourRows = [...rollupRuns(runs, HOUR_MS).values()].filter((r) => whole(r.bucketStart));
        for (let h = bucketStart(start, HOUR_MS); h < end; h += HOUR_MS) {
          if (whole(h)) {
            await replaceRollups(em, { tenantId, spanMs: HOUR_MS, from: h, to: h + HOUR_MS, rows: hourRows.filter((r) => r.bucketStart === h) });
            report.hours++;
          } else partialHours.add(h);
        }
        await advance(em, Object.fromEntries(fields.map((f) => [f, end])));
        report.runs += runs.length;
        return end;
      });
      report.chunks++;
      at = end;
    }
    return at;
  };

  // A cursor with nothing between rolled and settled rolls the minutes already past the settle lag once, as settled.
  if (settledUntil === rolledUntil && rolledUntil < settleTo) {
    rolledUntil = settledUntil = await pass(rolledUntil, Math.min(settleTo, rollTo), ['rolled_until', 'settled_until']);
  }
  if (!report.more) rolledUntil = await pass(rolledUntil, rollTo, ['rolled_until']);
  if (!report.more) settledUntil = await pass(settledUntil, Math.min(settleTo, rolledUntil), ['settled_until']);
  report.settledUntil = settledUntil;

  for (const hour of partialHours) {
    await inTransaction(dataSource, async (em) => {
      const minutes = await readRollups(em, { tenantId, spanMs: MINUTE_MS, from: hour, to: hour + HOUR_MS });
      const byTask = new Map<number, RollupCell>();
      for (const { taskId, cell } of minutes) {
        let sum = byTask.get(taskId);
        if (!sum) byTask.set(taskId, (sum = emptyCell()));
        mergeCell(sum, cell);
      }
      await replaceRollups(em, { tenantId, spanMs: HOUR_MS, from: hour, to: hour + HOUR_MS, rows: [...byTask].map(([taskId, cell]) => ({ taskId, bucketStart: hour, cell })) });
    });
    report.hours++;
  }
  return report;
}
