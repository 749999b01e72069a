import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { CLOCK, type Clock } from '@baton/domain';
import { afterCommit, decideRunApproval, findDueApprovals, insertAuditRecords, queueAuditWebhookDeliveries, releaseApprovedRun, settleRunApproval, type DueApproval } from '@baton/persistence';
import { traceFields } from '@baton/tracing';
import { ClaimSignal } from '../common/claim-signal';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { followUpTransaction } from '../follow-ups/follow-ups';
import { RunOutcomes } from './run-outcomes';

/** Approvals handled per sweep; the rest wait for the next watchdog tick. */
const SWEEP_BATCH = 100;

/**
 * Carries out the decisions on runs waiting for approval that are the engines' to carry out, on
 * the watchdog's tick, for this node's engine groups (findDueApprovals: an indexed range over the
 * rows due now, durable across restarts — no timer in memory holds a deadline):
 *
 * - a deadline passed with nobody deciding: the gate's `onTimeout` is recorded as the decision
 *   (decided_by null: the deadline), with its audit record (`run.approve` / `run.reject`, actor
 *   kind `engine`, as a person's decision has one) — APPROVE makes the run PENDING, claimable at
 *   once; REJECT fails it (RunOutcomes.endRejected: alarm, follow-ups);
 * - a person rejected it in the console (which records the decision only, since a run's end and
 *   its follow-ups are the engine's to write): the run fails the same way.
 *
 * Each in a transaction of its own; the guarded writes (`decision IS NULL`, the run's
 * APPROVAL_WAIT) make a person deciding at the deadline's instant, or two engines sweeping at once,
 * end the wait once. A run cancelled while it waited only has its row settled (no decision).
 */
@Injectable()
export class ApprovalDecisions {
  private readonly logger = new Logger('ApprovalDecisions');

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly outcomes: RunOutcomes,
    private readonly signal: ClaimSignal,
  ) {}

  /** One pass; returns how many approvals it carried out. */
  async sweep(): Promise<number> {
    const now = this.clock.now();
    const due = await findDueApprovals(this.dataSource.manager, { groups: this.config.groups, now, limit: SWEEP_BATCH });
    let done = 0;
    for (const approval of due) {
      try {
        await followUpTransaction(this.dataSource, (em) => this.carryOut(em, approval, now));
        done++;
      } catch (err) {
        this.logger.error(`approval step failed: ${(err as Error).message}`, { tenantId: approval.run.tenantId, runId: approval.run.runId, ...traceFields(approval.run.traceParent) });
      }
    }
    return done;
  }

  private async carryOut(em: EntityManager, approval: DueApproval, now: number): Promise<void> {
    const { run } = approval;
    // Cancelled while it waited: nothing to decide, the row only leaves the sweep.
    if (run.state !== 'APPROVAL_WAIT') return settleRunApproval(em, run.runId);
    let decision = approval.decision;
    if (decision === null) {
      // The deadline decides, unless a person was first (then the next sweep carries theirs out) or a
      // cancel was (decideRunApproval's guard on the run's state; the next sweep settles the row).
      const decided = await decideRunApproval(em, { runId: run.runId, tenantId: run.tenantId, decision: approval.onTimeout, decidedBy: null, comment: null, dueAt: null, now });
      if (!decided) return;
      decision = approval.onTimeout;
      await this.audit(em, approval, now);
    } else {
      await settleRunApproval(em, run.runId);
    }
    if (decision === 'APPROVE') {
      if (await releaseApprovedRun(em, { runId: run.runId, tenantId: run.tenantId, now })) afterCommit(em, () => this.signal.due(run.tenantId));
      return;
    }
    const why =
      approval.decision === null
        ? `was rejected by its approval deadline (${new Date(approval.deadlineAt).toISOString()}, onTimeout REJECT)`
        : `was rejected by ${approval.decidedBy ?? 'a person'}${approval.comment ? `: ${approval.comment}` : ''}`;
    await this.outcomes.endRejected(em, run, why, now);
  }

  /** The deadline's decision in the audit log, in its transaction, and to the tenant's webhook channels that take AUDIT events. */
  private async audit(em: EntityManager, { run, onTimeout, deadlineAt }: DueApproval, now: number): Promise<void> {
    await insertAuditRecords(em, [
      {
        at: now,
        tenantId: run.tenantId,
        actorKind: 'engine',
        // Not the node id: the tenant reads its audit log, and a node id names its host and pid by default.
        actorName: 'engine',
        actorUserId: null,
        actorApiKeyId: null,
        sourceAddress: null,
        action: onTimeout === 'APPROVE' ? 'run.approve' : 'run.reject',
        objectType: 'run',
        objectId: String(run.runId),
        before: { taskId: run.taskId, state: run.state, decision: null },
        after: { taskId: run.taskId, state: onTimeout === 'APPROVE' ? 'PENDING' : run.state, decision: onTimeout, decidedBy: 'deadline', deadlineAt },
      },
    ]);
    await queueAuditWebhookDeliveries(em, { tenantId: run.tenantId, now });
  }
}
