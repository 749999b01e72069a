import type { EntityManager } from 'typeorm';
import { dialectOf, execute } from '../sql';
import { stateIn } from '../../runs/run-writes';
import { RECORD_START_OF_ENDED_RUN } from './record-start-of-ended-run';

/**
 * Takes the final report of an attempt Baton ended itself, once: the run CANCELLED or TIMED_OUT
 * at that attempt, or the attempt kept TIMED_OUT in run_attempts (the run retried it):
 *
 *   INSERT IGNORE INTO run_attempt_reports (run_id, attempt, tenant_id, taken_at)        -- SQLite: INSERT OR IGNORE
 *   SELECT id, attempt, tenant_id, ? FROM runs
 *    WHERE id = ? AND tenant_id = ? AND attempt = ? AND state IN ('CANCELLED', 'TIMED_OUT')
 *   UNION ALL
 *   SELECT run_id, attempt, tenant_id, ? FROM run_attempts
 *    WHERE run_id = ? AND tenant_id = ? AND attempt = ? AND state = 'TIMED_OUT'
 *
 * True when this call took it: the caller keeps what the report says of the attempt (its start,
 * its log lines) in the same transaction. False for a report of an attempt that ended otherwise,
 * of another tenant's run, or taken already — an executor sends a callback again when its answer
 * was lost, and of two copies at two engines at once one inserts and the other waits on its row
 * (the primary key, run_id and attempt). The report that itself ends its attempt TIMED_OUT (the
 * executor aborted on the deadline) is taken here too, so that a copy of it is not kept as the
 * report of an attempt that had ended. Both reads are primary- or unique-key probes; run them at
 * READ COMMITTED, where they lock nothing.
 */
export async function takeAttemptReport(manager: EntityManager, input: { runId: number; tenantId: string; attempt: number; now: number }): Promise<boolean> {
  const insert = dialectOf(manager) === 'mysql' ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
  const where = [input.runId, input.tenantId, input.attempt];
  const { affected } = await execute(
    manager,
    `${insert} INTO run_attempt_reports (run_id, attempt, tenant_id, taken_at)
     SELECT id, attempt, tenant_id, ? FROM runs WHERE id = ? AND tenant_id = ? AND attempt = ? AND ${stateIn(RECORD_START_OF_ENDED_RUN)}
     UNION ALL
     SELECT run_id, attempt, tenant_id, ? FROM run_attempts WHERE run_id = ? AND tenant_id = ? AND attempt = ? AND state = 'TIMED_OUT'`,
    [input.now, ...where, input.now, ...where],
  );
  return affected > 0;
}
