import type { EntityManager } from 'typeorm';
import type { ApprovalGate } from '@baton/domain';
import { execute, num, placeholders } from '../engine-queries/sql';

/** A run that has just started to wait for a person, for its APPROVAL_REQUESTED alarm. */
export interface WaitingRun {
  runId: number;
  tenantId: string;
  taskId: number;
  taskName: string;
  gate: ApprovalGate;
  deadlineAt: number;
}

/**
 * The approval rows of a flow's children just written as APPROVAL_WAIT (insertDependencyRuns), in
 * the transaction that fired them, after lockFlowRoot:
 *
 *   SELECT r.id, r.tenant_id, r.task_id, t.name FROM runs r JOIN tasks t ON t.id = r.task_id
 *     LEFT JOIN run_approvals a ON a.run_id = r.id
 *    WHERE r.task_id IN (…) AND r.fire_key = ? AND r.state = 'APPROVAL_WAIT' AND a.run_id IS NULL
 *   INSERT INTO run_approvals (…) VALUES (…), (…)
 *
 * The read is uq_runs_task_fire_key (a child runs once per flow) and the primary key: a row per
 * child. A child that already waits (the other parent of a fan-in fired it first) has its row and
 * is left out, so its alarm is raised once. Returns the runs that started to wait now.
 * Called only inside FollowUps, after lockFlowRoot: no other transaction writes this flow's rows.
 */
export async function insertRunApprovals(
  manager: EntityManager,
  input: { flowId: number; gates: ReadonlyMap<number, ApprovalGate>; now: number },
): Promise<WaitingRun[]> {
  const taskIds = [...input.gates.keys()];
  if (taskIds.length === 0) return [];
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT r.id, r.tenant_id, r.task_id, t.name FROM runs r JOIN tasks t ON t.id = r.task_id
       LEFT JOIN run_approvals a ON a.run_id = r.id
      WHERE r.task_id IN (${placeholders(taskIds.length)}) AND r.fire_key = ? AND r.state = 'APPROVAL_WAIT' AND a.run_id IS NULL`,
    [...taskIds, `f:${input.flowId}`],
  );
  if (rows.length === 0) return [];
  const waiting = rows.map((r): WaitingRun => {
    const gate = input.gates.get(num(r.task_id))!;
    return { runId: num(r.id), tenantId: String(r.tenant_id), taskId: num(r.task_id), taskName: String(r.name), gate, deadlineAt: input.now + gate.timeoutMs };
  });
  // No duplicate can meet this insert: the flow's root is locked (lockFlowRoot; SQLite serialises transactions).
  await execute(
    manager,
    `INSERT INTO run_approvals (run_id, tenant_id, role, users, on_timeout, deadline_at, due_at, created_at) VALUES ${waiting.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
    waiting.flatMap((w) => [w.runId, w.tenantId, w.gate.role, JSON.stringify(w.gate.users), w.gate.onTimeout, w.deadlineAt, w.deadlineAt, input.now]),
  );
  return waiting;
}
