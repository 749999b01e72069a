import { Injectable } from '@nestjs/common';
import { Alarms } from '../alarms/alarms';
import { ClaimSignal } from '../common/claim-signal';
import type { DataSource, EntityManager } from 'typeorm';
import { childrenToFire, describeApprovers, mergeGates, parentResultsJson, type ApprovalGate, type DependencyEdge, type RunCause } from '@baton/domain';
import {
  findDependencyEdges,
  continueFixedDelayChain,
  findFixedDelaySchedule,
  findFlowOutcomes,
  findParentResults,
  findRunCause,
  afterCommit,
  inTransaction,
  insertDependencyRuns,
  insertRunApprovals,
  lockFlowRoot,
  type FollowUpHints,
} from '@baton/persistence';

/** A run that has just reached a terminal state, as the follow-ups need it. */
export interface EndedRun {
  runId: number;
  tenantId: string;
  taskId: number;
  /** The flow's root run; null is read as "this run is the root". */
  flowId: number | null;
  /** undefined: read from the row when needed. */
  cause?: RunCause;
  /** Read with the run (RunAttemptRow): a follow-up it rules out is not looked for. undefined: look for both. */
  followUps?: FollowUpHints;
  /** W3C traceparent the children are made under (stored as theirs): they join this run's trace. Undefined: untraced. */
  traceParent?: string | null;
}

export type EndState = 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'SKIPPED' | 'CANCELLED';

/**
 * Runs `work` in the kind of transaction follow-ups need: READ COMMITTED on MySQL, so the fan-in
 * read after lockFlowRoot sees what other transactions committed while this one waited for the
 * lock (at REPEATABLE READ a read view taken earlier in the transaction would hide it).
 * Every transaction that ends a run (and so may call FollowUps) goes through here, or through a
 * GroupCommit with FOLLOW_UP_ISOLATION (the callbacks').
 */
export function followUpTransaction<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  return inTransaction(dataSource, work, { isolation: FOLLOW_UP_ISOLATION });
}

export const FOLLOW_UP_ISOLATION = 'READ COMMITTED';

/**
 * Per-transaction memo of what a task's follow-ups read (its dependency edges, its fixed-delay
 * schedule): a group-committed batch of callbacks ends many runs of the same few tasks in one
 * transaction, and a burst's 1,000 runs of 10 tasks need 20 such reads, not 2,000. Scoped to
 * the transaction (its EntityManager), so nothing outlives what that transaction could see.
 */
const perTransaction = new WeakMap<EntityManager, Map<string, Promise<unknown>>>();

function memo<T>(manager: EntityManager, key: string, read: () => Promise<T>): Promise<T> {
  let reads = perTransaction.get(manager);
  if (!reads) perTransaction.set(manager, (reads = new Map()));
  let value = reads.get(key) as Promise<T> | undefined;
  if (!value) reads.set(key, (value = read()));
  return value;
}

/**
 * What happens after a run ends, in the transaction that ended it (call it right after the
 * guarded update that made the run terminal, inside followUpTransaction):
 *
 * 1. Children (SUCCEEDED, FAILED, TIMED_OUT): per the DAG edges and the flow's other finished
 *    parents — `childrenToFire`; fan-in waits for every parent. Each child is a new PENDING run,
 *    cause DEPENDENCY, fire key `f:<flow>`, same flow, parent_run_id = this run. Only the
 *    failed step of a chain is retried (a retry is the same row, so it never gets here until
 *    it ends for good), and the chain goes on from there. A child behind an edge with an approval
 *    step waits instead (APPROVAL_WAIT, its run_approvals row with the deadline, an
 *    APPROVAL_REQUESTED alarm naming who may decide) until a person or the deadline decides
 *    (apps/engine/src/runs/approval-decisions.ts, the console's run-changes).
 * 2. FIXED_DELAY (any end but CANCELLED, of a SCHEDULE run): the task's next fire is
 *    `delay` after now — the chain of a fixed-delay task continues whether the run succeeded,
 *    failed, timed out or was skipped. A user's cancel goes on with it from the console, in the
 *    cancel's transaction (RunChangesService); a fire withdrawn by a pause or an edit is planned
 *    again by the rewind of the task's next fire.
 */
@Injectable()
export class FollowUps {
  constructor(
    private readonly signal: ClaimSignal,
    private readonly alarms: Alarms,
  ) {}

  async afterRunEnded(manager: EntityManager, run: EndedRun, state: EndState, now: number): Promise<{ children: number; nextFireAt: number | null }> {
    let children = 0;
    const may = run.followUps ?? { children: true, fixedDelay: true };
    if (may.children && (state === 'SUCCEEDED' || state === 'FAILED' || state === 'TIMED_OUT')) children = await this.fireChildren(manager, run, state, now);
    let nextFireAt: number | null = null;
    if (may.fixedDelay && state !== 'CANCELLED') nextFireAt = await this.continueFixedDelay(manager, run, now);
    return { children, nextFireAt };
  }

  private async fireChildren(manager: EntityManager, run: EndedRun, outcome: 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT', now: number): Promise<number> {
    const rows = await memo(manager, `edges:${run.tenantId}:${run.taskId}`, () => findDependencyEdges(manager, run.tenantId, run.taskId));
    if (rows.length === 0) return 0;
    const flowId = run.flowId ?? run.runId;
    await lockFlowRoot(manager, flowId);
    const parents = [...new Set(rows.map((e) => e.parentTaskId).filter((id) => id !== run.taskId))];
    const finished = await findFlowOutcomes(manager, flowId, parents);
    // childrenToFire speaks task names; task ids (as strings) are names enough here.
    const edges: DependencyEdge[] = rows.map((e) => ({ parent: String(e.parentTaskId), child: String(e.childTaskId), condition: e.condition }));
    const outcomes = new Map([...finished].map(([taskId, o]) => [String(taskId), o]));
    const ready = childrenToFire(edges, String(run.taskId), outcome, outcomes).map(Number);
    if (ready.length === 0) return 0;
    // Each child sees its parents' results in this flow (ctx.parentResults), bounded.
    const results = await findParentResults(manager, flowId, [...new Set(rows.filter((e) => ready.includes(e.childTaskId)).map((e) => e.parentTaskId))]);
    const parentResults = new Map(
      ready.map((child) => [child, parentResultsJson(rows.filter((e) => e.childTaskId === child).flatMap((e) => results.get(e.parentTaskId) ?? []))]),
    );
    // A child waits for a person when an edge into it has an approval step (several: mergeGates).
    const gates = new Map<number, ApprovalGate>();
    for (const child of ready) {
      const gate = mergeGates(rows.filter((e) => e.childTaskId === child && e.approval !== null).map((e) => e.approval as ApprovalGate));
      if (gate) gates.set(child, gate);
    }
    await insertDependencyRuns(manager, { tenantId: run.tenantId, childTaskIds: ready, flowId, parentRunId: run.runId, parentResults, waiting: new Set(gates.keys()), traceParent: run.traceParent ?? null, now });
    await this.askForApproval(manager, flowId, gates, now);
    // The children are due now: this node claims them once they are committed, not at its next poll.
    afterCommit(manager, () => this.signal.due(run.tenantId));
    return ready.length;
  }

  /** The approval rows of the children that now wait, and an alarm for each naming who may decide (raised whatever the task's alarm types: a wait must not be silent). */
  private async askForApproval(manager: EntityManager, flowId: number, gates: ReadonlyMap<number, ApprovalGate>, now: number): Promise<void> {
    for (const waiting of await insertRunApprovals(manager, { flowId, gates, now })) {
      const approvers = describeApprovers(waiting.gate);
      await this.alarms.raise(manager, {
        tenantId: waiting.tenantId,
        type: 'APPROVAL_REQUESTED',
        taskId: waiting.taskId,
        runId: waiting.runId,
        message: `Task ${waiting.taskName}: run ${waiting.runId} waits for approval by ${approvers} until ${new Date(waiting.deadlineAt).toISOString()} (then ${waiting.gate.onTimeout})`,
        data: { role: waiting.gate.role, users: waiting.gate.users, deadlineAt: waiting.deadlineAt, onTimeout: waiting.gate.onTimeout },
        alarmTypes: null,
        now,
      });
    }
  }

  private async continueFixedDelay(manager: EntityManager, run: EndedRun, now: number): Promise<number | null> {
    const schedule = await memo(manager, `fixed-delay:${run.taskId}`, () => findFixedDelaySchedule(manager, run.taskId));
    if (!schedule) return null;
    const cause = run.cause ?? (await findRunCause(manager, run.runId));
    if (cause !== 'SCHEDULE') return null;
    return continueFixedDelayChain(manager, run.taskId, schedule, now);
  }
}
