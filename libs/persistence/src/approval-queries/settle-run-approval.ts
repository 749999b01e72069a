import type { EntityManager } from 'typeorm';
import { execute } from '../engine-queries/sql';

/**
 * Nothing is left for an engine to do on this approval (its rejection was carried out, or its run
 * ended otherwise — cancelled while it waited):
 *
 *   UPDATE run_approvals SET due_at = NULL WHERE run_id = ?
 *
 * By primary key; takes the row out of ix_run_approvals_due's range.
 */
export async function settleRunApproval(manager: EntityManager, runId: number): Promise<void> {
  await execute(manager, 'UPDATE run_approvals SET due_at = NULL WHERE run_id = ?', [runId]);
}
