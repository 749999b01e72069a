import type { EntityManager } from 'typeorm';
import type { ApprovalOutcome } from '@baton/domain';
import { RUN_ATTEMPT_COLUMNS, toRunAttemptRow, type RunAttemptRow } from '../engine-queries/runs/run-attempt-row';
import { execute, placeholders } from '../engine-queries/sql';

/** A run an engine must act on now: its approval's deadline has passed, or a person has rejected it. */
export interface DueApproval {
  run: RunAttemptRow;
  /** The decision made (a person's REJECT); null: none yet, the deadline decides `onTimeout`. */
  decision: ApprovalOutcome | null;
  decidedBy: string | null;
  comment: string | null;
  onTimeout: ApprovalOutcome;
  deadlineAt: number;
}

/**
 * The engine's approval sweep: approval rows due now of runs in my engine groups, oldest first.
 *
 *   SELECT … FROM run_approvals a JOIN runs r ON r.id = a.run_id JOIN tasks t ON t.id = r.task_id
 *     LEFT JOIN executors e ON e.id = r.executor_id
 *    WHERE a.due_at <= ? AND r.engine_group IN (…) ORDER BY a.due_at LIMIT ?
 *
 * A range on ix_run_approvals_due that reads only the rows due now — a waiting run past its
 * deadline, a rejection not yet carried out — however many runs wait: `due_at` is NULL once
 * nothing is left to do. The group is the run's (a tenant moved to another group takes its
 * waiting runs along), read by primary key.
 */
export async function findDueApprovals(manager: EntityManager, input: { groups: readonly string[]; now: number; limit: number }): Promise<DueApproval[]> {
  if (input.groups.length === 0) return [];
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT ${RUN_ATTEMPT_COLUMNS}, a.decision, a.decided_by, a.comment AS approval_comment, a.on_timeout, a.deadline_at
       FROM run_approvals a JOIN runs r ON r.id = a.run_id JOIN tasks t ON t.id = r.task_id LEFT JOIN executors e ON e.id = r.executor_id
      WHERE a.due_at <= ? AND r.engine_group IN (${placeholders(input.groups.length)})
      ORDER BY a.due_at LIMIT ?`,
    [input.now, ...input.groups, input.limit],
  );
  return rows.map((r) => ({
    run: toRunAttemptRow(r),
    decision: (r.decision as ApprovalOutcome | null) ?? null,
    decidedBy: (r.decided_by as string | null) ?? null,
    comment: (r.approval_comment as string | null) ?? null,
    onTimeout: r.on_timeout as ApprovalOutcome,
    deadlineAt: Number(r.deadline_at),
  }));
}
