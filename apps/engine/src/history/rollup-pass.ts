import type { DataSource } from 'typeorm';
import { bucketStart, emptyCell, HOUR_MS, mergeCell, MINUTE_MS, rollupRuns, type RollupCell } from '@baton/domain';
import { advanceHistoryCursor, inTransaction, nextEndAfter, readEndedRuns, readTenantRollups, replaceRollups, type HistoryCursor } from '@baton/persistence';
import { LostHistoryLeaseError } from './lost-history-lease.error';

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
/** Minutes recomputed per tenant per pass: bounded work, a backlog (a new cursor over old runs) catches up over passes. */
export const MAX_MINUTES_PER_PASS = 60;

/** What one rollup pass of a tenant did. */
export interface RollupReport {
  minutes: number;
  runs: number;
  hours: number;
}

/**
 * Rolls a tenant's ended runs into minute rows (each minute computed twice: after ROLL_LAG_MS and
 * after SETTLE_LAG_MS), then recomputes the hour rows of the hours it touched from their minutes.
 * Each minute is one transaction: delete-and-insert of its rows plus the cursor's move, guarded
 * by the lease — an engine that lost the tenant to another rolls its minute back.
 */
export async function rollupTenant(dataSource: DataSource, worker: string, cursor: HistoryCursor, now: number): Promise<RollupReport> {
  const tenantId = cursor.tenantId;
  const report: RollupReport = { minutes: 0, runs: 0, hours: 0 };
  const hours = new Set<number>();
  const rollTo = bucketStart(now - ROLL_LAG_MS, MINUTE_MS);
  const settleTo = bucketStart(now - SETTLE_LAG_MS, MINUTE_MS);
  let { rolledUntil, settledUntil } = cursor;
  if (rolledUntil === 0) {
    // A new cursor starts at the tenant's oldest end, not at the epoch.
    const first = await nextEndAfter(dataSource.manager, tenantId, 0);
    rolledUntil = settledUntil = first === null ? settleTo : bucketStart(first, MINUTE_MS);
    if (!(await advanceHistoryCursor(dataSource.manager, tenantId, worker, { rolled_until: rolledUntil, settled_until: settledUntil }))) throw new LostHistoryLeaseError(tenantId);
  }

  const pass = async (from: number, to: number, field: 'rolled_until' | 'settled_until'): Promise<number> => {
    let minute = from;
    while (minute < to && report.minutes < MAX_MINUTES_PER_PASS * 2) {
      const next = await nextEndAfter(dataSource.manager, tenantId, minute);
      if (next === null || next >= to) {
        if (!(await advanceHistoryCursor(dataSource.manager, tenantId, worker, { [field]: to }))) throw new LostHistoryLeaseError(tenantId);
        return to;
      }
      minute = bucketStart(next, MINUTE_MS);
      const end = minute + MINUTE_MS;
      const counted = await inTransaction(dataSource, async (em) => {
        const runs = await readEndedRuns(em, { tenantId, from: minute, to: end });
        const rows = [...rollupRuns(runs, MINUTE_MS).values()];
        await replaceRollups(em, { tenantId, spanMs: MINUTE_MS, from: minute, to: end, rows });
        if (!(await advanceHistoryCursor(em, tenantId, worker, { [field]: end }))) throw new LostHistoryLeaseError(tenantId);
        return runs.length;
      });
      report.minutes++;
      report.runs += counted;
      hours.add(bucketStart(minute, HOUR_MS));
      minute = end;
    }
    return minute;
  };

  rolledUntil = await pass(rolledUntil, rollTo, 'rolled_until');
  await pass(settledUntil, Math.min(settleTo, rolledUntil), 'settled_until');

  for (const hour of hours) {
    await inTransaction(dataSource, async (em) => {
      const minutes = await readTenantRollups(em, { tenantId, spanMs: MINUTE_MS, from: hour, to: hour + HOUR_MS });
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
