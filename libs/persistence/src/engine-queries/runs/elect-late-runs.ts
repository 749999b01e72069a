import type { EntityManager } from 'typeorm';
import { dialectOf, execute, num, placeholders } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Guarded by state, changes none (run-writes.spec.ts). */
export const ELECT_LATE_RUNS = runWrite('electLateRuns', ['PENDING', 'CLAIMED', 'RETRY_WAIT'], 'same');

/**
 * The START_LATE election of a watchdog tick's late runs, in the caller's transaction:
 *
 *   SELECT id FROM runs FORCE INDEX (PRIMARY) WHERE id IN (…) AND late_alarmed_at IS NULL
 *      AND state IN ('PENDING', 'CLAIMED', 'RETRY_WAIT') FOR UPDATE SKIP LOCKED
 *   UPDATE runs SET late_alarmed_at = ? WHERE id IN (…the rows read)
 *
 * Every engine of the group runs the watchdog and finds the same late runs; the rows read are
 * this engine's to alarm (it writes their alarms in the same transaction), locked until it
 * commits. Another engine's election skips them and, once this one has committed, no longer
 * finds them: each run is alarmed once. The state test drops a run dispatched since the scan.
 * Two statements a tick for up to its 200 runs: with one UPDATE a run, a backlog that fell
 * behind its start deadlines cost a statement a run on each engine (event-ingest, 2026-12-06:
 * 6,819 of them for 2,701 alarms, both engines trying each run). By primary key, as the lease
 * renewal's extendLeases: through a state index the locking read would lock the late runs it only
 * looks at, other ticks' and other engines' included. SQLite has one engine and no FOR UPDATE: its
 * transaction is the only writer.
 */
export async function electLateRuns(manager: EntityManager, runIds: readonly number[], now: number): Promise<Set<number>> {
  if (runIds.length === 0) return new Set();
  const mysql = dialectOf(manager) === 'mysql';
  const lock = mysql ? ' FOR UPDATE SKIP LOCKED' : '';
  const { rows } = await execute<{ id: unknown }>(
    manager,
    `SELECT id FROM runs${mysql ? ' FORCE INDEX (PRIMARY)' : ''} WHERE id IN (${placeholders(runIds.length)}) AND late_alarmed_at IS NULL AND ${stateIn(ELECT_LATE_RUNS)}${lock}`,
    [...runIds],
  );
  const elected = rows.map((r) => num(r.id));
  if (elected.length > 0) await execute(manager, `UPDATE runs SET late_alarmed_at = ? WHERE id IN (${placeholders(elected.length)})`, [now, ...elected]);
  return new Set(elected);
}
