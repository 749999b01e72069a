import type { EntityManager } from 'typeorm';
import type { ApprovalOutcome } from '@baton/domain';
import { execute } from '../engine-queries/sql';

/**
 * Records the decision on a waiting run, once:
 *
 *   UPDATE run_approvals SET decision = ?, decided_by = ?, decided_at = ?, comment = ?, due_at = ?
 *    WHERE run_id = ? AND tenant_id = ? AND decision IS NULL [AND deadline_at > :now]   -- [a person's]
 *
 * The guard `decision IS NULL` is the election between two people deciding at once, or a person and
 * the deadline: one matches, the other gets false and changes nothing (409). `dueAt`: when an engine
 * must still act on it (a person's rejection: now), or null (nothing left). A person's
 * decision (`decidedBy` set) matches only while the deadline is still ahead of `now`: from it on,
 * the deadline decides, even before an engine has recorded it. By primary key.
 */
export async function decideRunApproval(
  manager: EntityManager,
  input: { runId: number; tenantId: string; decision: ApprovalOutcome; decidedBy: string | null; comment: string | null; dueAt: number | null; now: number },
): Promise<boolean> {
  const { affected } = await execute(
    manager,
    `UPDATE run_approvals SET decision = ?, decided_by = ?, decided_at = ?, comment = ?, due_at = ?
      WHERE run_id = ? AND tenant_id = ? AND decision IS NULL${input.decidedBy === null ? '' : ' AND deadline_at > ?'}`,
    [input.decision, input.decidedBy, input.now, input.comment, input.dueAt, input.runId, input.tenantId, ...(input.decidedBy === null ? [] : [input.now])],
  );
  return affected > 0;
}
