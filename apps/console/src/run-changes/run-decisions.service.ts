import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { lateDecisionProblem, refusalToDecide, type ApprovalOutcome, type Decider } from '@baton/domain';
import type { RunWakeups } from '@baton/messaging';
import { afterCommit, decideRunApproval, findRun, findRunApproval, releaseApprovedRun, type RunApprovalEntity, type RunEntity } from '@baton/persistence';
import { ApiError, conflict, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { RUN_WAKEUPS } from '../wakeups/run-wakeups';

/**
 * A person's decision on a run waiting for approval (POST /api/runs/{id}/approve | reject), made
 * in the caller's transaction — part of the console's door for run changes:
 *
 * - APPROVE: the decision is recorded and the run moves APPROVAL_WAIT → PENDING, due now; once
 *   committed an engine of its group is woken naming it, so it is claimed at once.
 * - REJECT: the decision is recorded, due now for the engines (run_approvals.due_at), which end the
 *   run FAILED with its alarm and follow-ups at their next watchdog tick (BATON_WATCHDOG_INTERVAL_MS,
 *   500 ms): a run's end and what follows it are written by the engines, as every end is.
 *
 * Refused, writing nothing: 404 no such run of the tenant; 409 the run is not waiting (no approval
 * step, decided already, cancelled, or its deadline has come: the deadline decides); 403 the gate
 * does not admit the caller.
 */
@Injectable()
export class RunDecisionsService {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(RUN_WAKEUPS) private readonly wakeups: RunWakeups,
  ) {}

  /** Records the decision; returns the run and its approval as they were before. */
  async decide(em: EntityManager, input: { tenantId: string; runId: number; decider: Decider; outcome: ApprovalOutcome; comment: string | null }): Promise<{ run: RunEntity; approval: RunApprovalEntity }> {
    const { tenantId, runId } = input;
    const run = await findRun(em, tenantId, runId);
    if (!run) throw notFound('Run', runId);
    const approval = await findRunApproval(em, tenantId, runId);
    if (!approval) throw notWaiting(runId, `is ${run.state} and has no approval step`);
    if (approval.decision !== null) throw notWaiting(runId, `was decided already: ${approval.decision} by ${approval.decidedBy ?? 'its deadline'}`);
    if (run.state !== 'APPROVAL_WAIT') throw notWaiting(runId, `is ${run.state}, not APPROVAL_WAIT`);
    const now = this.clock.now();
    const late = lateDecisionProblem(approval, now);
    if (late) throw notWaiting(runId, late);
    const refusal = refusalToDecide(approval, input.decider);
    if (refusal) throw new ApiError(403, `Run ${runId}: ${refusal}`, { errors: [{ field: 'approvers', reason: refusal }] });
    const approve = input.outcome === 'APPROVE';
    const decided = await decideRunApproval(em, { runId, tenantId, decision: input.outcome, decidedBy: input.decider.username, comment: input.comment, dueAt: approve ? null : now, now });
    // Another decision (a person's, or the deadline's), or a cancel, committed between the read and the write.
    if (!decided) throw notWaiting(runId, (await findRun(em, tenantId, runId))?.state === 'APPROVAL_WAIT' ? 'was decided meanwhile' : 'no longer waits (cancelled meanwhile)');
    if (approve) {
      if (!(await releaseApprovedRun(em, { runId, tenantId, now }))) throw notWaiting(runId, 'no longer waits (cancelled meanwhile)');
      afterCommit(em, () => this.wakeups.wake({ tenantId, engineGroup: run.engineGroup, dueAt: now, runIds: [runId] }));
    }
    return { run, approval };
  }
}

function notWaiting(runId: number, why: string): ApiError {
  return conflict(`Run ${runId} is not waiting for approval: it ${why}`, [{ field: 'state', reason: `not waiting for approval: it ${why}` }]);
}
