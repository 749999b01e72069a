import type { EntityManager } from 'typeorm';
import { RUN_ATTEMPT_COLUMNS, toRunAttemptRow, type RunAttemptRow } from './run-attempt-row';
import { execute } from '../sql';

/**
 * The runs a silent executor (DOWN, not stopped, protocol `minProtocol` or later) accepted and whose
 * instants come more than `leaseMs` after its last heartbeat — those it never started, if it keeps
 * the sent-ahead lease (docs/EXECUTOR-PROTOCOL.md, "Runs sent ahead and contact"):
 *
 *   SELECT … FROM tenants tn
 *     JOIN executors e ON e.id = ? AND e.tenant_id = tn.id
 *     JOIN runs r ON r.engine_group = tn.engine_group AND r.state = 'ACCEPTED' AND r.executor_id = e.id AND r.tenant_id = tn.id
 *     JOIN tasks t ON t.id = r.task_id
 *    WHERE tn.id = ? AND e.state = 'DOWN' AND e.stopped_at IS NULL AND e.protocol_version >= ?
 *      AND COALESCE(r.instant_at, r.due_at) > e.heartbeat_at + ?
 *    LIMIT ?
 *
 * ACCEPTED only: its 202 came back, so the executor had the run before this read. One statement
 * reads the executor and its runs together: an executor that came back UP meanwhile has none.
 * Read when an executor goes DOWN and while its runs wait to be reconciled. MariaDB 10.11 plans it
 * from the tenant's and the executor's rows (constants), then the ACCEPTED runs by an index led by
 * `state` (ix_runs_lease, or ix_runs_deadline's (engine_group, state) range), each task by its
 * primary key: in a test of 20,000 runs and 3,000 tasks it read the 100 ACCEPTED runs, not the history.
 */
export async function findSentAheadHeldBy(
  manager: EntityManager,
  input: { tenantId: string; executorId: number; minProtocol: number; leaseMs: number; limit: number },
): Promise<RunAttemptRow[]> {
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT ${RUN_ATTEMPT_COLUMNS}
       FROM tenants tn
       JOIN executors e ON e.id = ? AND e.tenant_id = tn.id
       JOIN runs r ON r.engine_group = tn.engine_group AND r.state = 'ACCEPTED' AND r.executor_id = e.id AND r.tenant_id = tn.id
       JOIN tasks t ON t.id = r.task_id
      WHERE tn.id = ? AND e.state = 'DOWN' AND e.stopped_at IS NULL AND e.protocol_version >= ?
        AND COALESCE(r.instant_at, r.due_at) > e.heartbeat_at + ?
      LIMIT ?`,
    [input.executorId, input.tenantId, input.minProtocol, input.leaseMs, input.limit],
  );
  return rows.map(toRunAttemptRow);
}
