import type { EntityManager } from 'typeorm';
import { decodeHistogram, encodeHistogram, type RollupCell } from '@baton/domain';
import { execute, chunks, num, placeholders } from '../engine-queries/sql';

export interface RollupRow {
  taskId: number;
  bucketStart: number;
  cell: RollupCell;
}

const COLUMNS = 'tenant_id, task_id, span_ms, bucket_start, succeeded, failed, timed_out, cancelled, skipped, early_starts, duration_hist, lateness_hist, retry_wait_hist';

function cellOf(r: Record<string, unknown>): RollupCell {
  return {
    counts: { SUCCEEDED: num(r.succeeded), FAILED: num(r.failed), TIMED_OUT: num(r.timed_out), CANCELLED: num(r.cancelled), SKIPPED: num(r.skipped) },
    earlyStarts: num(r.early_starts),
    duration: decodeHistogram(String(r.duration_hist)),
    lateness: decodeHistogram(String(r.lateness_hist)),
    retryWait: decodeHistogram(String(r.retry_wait_hist)),
  };
}

/**
 * Replaces every rollup row of a tenant at one span with buckets in [from, to) by `rows`:
 *
 *   DELETE FROM run_rollups WHERE tenant_id = ? AND span_ms = ? AND bucket_start >= ? AND bucket_start < ?
 *   INSERT INTO run_rollups (…) VALUES (…), (…)
 *
 * Delete-then-insert in the caller's transaction, rather than upserts: a recomputed bucket must
 * also lose the tasks that no longer have runs in it, and a replay (two engines, the settle
 * pass) writes the same rows again instead of adding to them.
 */
export async function replaceRollups(manager: EntityManager, input: { tenantId: string; spanMs: number; from: number; to: number; rows: readonly RollupRow[] }): Promise<void> {
  await execute(manager, `DELETE FROM run_rollups WHERE tenant_id = ? AND span_ms = ? AND bucket_start >= ? AND bucket_start < ?`, [input.tenantId, input.spanMs, input.from, input.to]);
  for (const part of chunks(input.rows, 200)) {
    const params = part.flatMap(({ taskId, bucketStart, cell }) => [
      input.tenantId,
      taskId,
      input.spanMs,
      bucketStart,
      cell.counts.SUCCEEDED,
      cell.counts.FAILED,
      cell.counts.TIMED_OUT,
      cell.counts.CANCELLED,
      cell.counts.SKIPPED,
      cell.earlyStarts,
      encodeHistogram(cell.duration),
      encodeHistogram(cell.lateness),
      encodeHistogram(cell.retryWait),
    ]);
    await execute(manager, `INSERT INTO run_rollups (${COLUMNS}) VALUES ${part.map(() => `(${placeholders(13)})`).join(', ')}`, params);
  }
}

/**
 * Rollup rows of a tenant at one span with buckets in [from, to): of one task (or ALL_TASKS) —
 * the statistics' read, a range of the primary key (24 h of minutes is 1,440 rows, 90 days of
 * hours 2,160) — or, without `taskId`, of every task (recomputing hours from minutes, a range of
 * ix_run_rollups_age):
 *
 *   SELECT task_id, bucket_start, … FROM run_rollups WHERE tenant_id = ? [AND task_id = ?] AND span_ms = ? AND bucket_start >= ? AND bucket_start < ?
 */
export async function readRollups(manager: EntityManager, input: { tenantId: string; taskId?: number; spanMs: number; from: number; to: number }): Promise<RollupRow[]> {
  const task = input.taskId === undefined ? '' : ' AND task_id = ?';
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT task_id, bucket_start, succeeded, failed, timed_out, cancelled, skipped, early_starts, duration_hist, lateness_hist, retry_wait_hist
       FROM run_rollups WHERE tenant_id = ?${task} AND span_ms = ? AND bucket_start >= ? AND bucket_start < ?
      ORDER BY bucket_start`,
    [input.tenantId, ...(input.taskId === undefined ? [] : [input.taskId]), input.spanMs, input.from, input.to],
  );
  return rows.map((r) => ({ taskId: num(r.task_id), bucketStart: num(r.bucket_start), cell: cellOf(r) }));
}

/**
 * Drops a tenant's rollups at one span older than `before`, at most `limit` rows:
 *
 *   SELECT task_id, bucket_start FROM run_rollups WHERE tenant_id = ? AND span_ms = ? AND bucket_start < ? LIMIT ?
 *   DELETE FROM run_rollups WHERE tenant_id = ? AND span_ms = ? AND bucket_start < ? AND task_id IN (…)
 *
 * (SQLite has no DELETE … LIMIT.) Returns the rows dropped.
 */
export async function purgeRollups(manager: EntityManager, input: { tenantId: string; spanMs: number; before: number; limit: number }): Promise<number> {
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT task_id, bucket_start FROM run_rollups WHERE tenant_id = ? AND span_ms = ? AND bucket_start < ? ORDER BY bucket_start LIMIT ?`,
    [input.tenantId, input.spanMs, input.before, input.limit],
  );
  if (rows.length === 0) return 0;
  const upTo = Math.max(...rows.map((r) => num(r.bucket_start)));
  const tasks = [...new Set(rows.map((r) => num(r.task_id)))];
  const { affected } = await execute(
    manager,
    `DELETE FROM run_rollups WHERE tenant_id = ? AND span_ms = ? AND bucket_start <= ? AND task_id IN (${placeholders(tasks.length)})`,
    [input.tenantId, input.spanMs, upTo, ...tasks],
  );
  return affected;
}
