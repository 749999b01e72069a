import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { ApprovalOutcome, Decider } from '@baton/domain';
import type { RunWakeups } from '@baton/messaging';
import { afterCommit, findRun, findTenantRuns, insertManualRun, inTransaction, lockTaskForRuns, RunEntity, TaskEntity } from '@baton/persistence';
import { auditChange, auditNoChange } from '../audit';
import { ApiError, conflict, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { isActive, RunChangesService } from '../run-changes/run-changes.service';
import { RunDecisionsService } from '../run-changes/run-decisions.service';
import { RUN_WAKEUPS } from '../wakeups/run-wakeups';
import { wakeupsGone } from '../wakeups/wakeups-gone';
import type { BulkRunResultView, RunDetailView } from './dto/run.dto';
import { runDetailView, RunsService } from './runs.service';

/** What a user does to runs from the runs pages: cancel one or several (through RunChangesService), run finished ones again. */
@Injectable()
export class RunActionsService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(RUN_WAKEUPS) private readonly wakeups: RunWakeups,
    private readonly runs: RunsService,
    private readonly runChanges: RunChangesService,
    private readonly decisions: RunDecisionsService,
  ) {}

  /**
   * A person's decision on a run waiting for approval (RunDecisionsService: 404, 409 not waiting,
   * 403 not an approver), audited `run.approve` / `run.reject` with the decision and its comment.
   * Answers the run as it is once committed: an approved run is PENDING (claimed at once); a
   * rejected one still APPROVAL_WAIT with its decision recorded, until the engines end it FAILED.
   */
  async decide(tenantId: string, id: number, decider: Decider, outcome: ApprovalOutcome, comment: string | null): Promise<RunDetailView> {
    await inTransaction(this.dataSource, async (em) => {
      const { run, approval } = await this.decisions.decide(em, { tenantId, runId: id, decider, outcome, comment });
      await auditChange(em, {
        tenantId,
        objectType: 'run',
        objectId: id,
        before: { taskId: run.taskId, state: run.state, decision: approval.decision },
        after: { taskId: run.taskId, state: outcome === 'APPROVE' ? 'PENDING' : run.state, decision: outcome, comment },
      });
    });
    await wakeupsGone();
    return this.runs.get(tenantId, id, decider);
  }

  /**
   * Runs a finished run again: a new MANUAL run of its task with the params (and flow params) the
   * finished run had — not the task's current ones — due now. 409 while the run is still active,
   * for a shard (re-run its fan-out run) and for a run whose task was deleted.
   */
  async rerun(tenantId: string, id: number): Promise<RunDetailView> {
    const answer = await inTransaction(this.dataSource, async (em) => {
      const { runs, tasks } = await findTenantRuns(em, { tenantId, ids: [id] });
      const created = await this.rerunIn(em, tenantId, id, runs.get(id), tasks);
      await auditChange(em, { tenantId, objectType: 'run', objectId: created.id, after: { rerunOf: id, taskId: runs.get(id)?.taskId ?? null } });
      return runDetailView(created, tasks.get(created.taskId)?.name ?? null);
    });
    await wakeupsGone();
    return answer;
  }

  private async rerunIn(em: EntityManager, tenantId: string, id: number, row: RunEntity | undefined, tasks: Map<number, TaskEntity>): Promise<RunEntity> {
    if (!row) throw notFound('Run', id);
    if (isActive(row.state)) {
      throw conflict(`Run ${id} is ${row.state}: only a finished run can be run again`, [{ field: 'state', reason: `is ${row.state}, the run is not over yet` }]);
    }
    if (row.cause === 'SHARD') {
      throw conflict(`Run ${id} is shard ${row.shardIndex} of run ${row.parentRunId}: run ${row.parentRunId} again`, [
        { field: 'cause', reason: `is SHARD: a shard runs again with its fan-out run ${row.parentRunId}` },
      ]);
    }
    const task = tasks.get(row.taskId);
    // The task's group as its share lock reads it: a tenant moved meanwhile (moveTenantGroup) takes this run along or came first.
    const locked = task ? await lockTaskForRuns(em, { taskId: task.id, tenantId }) : null;
    if (!task || !locked) throw conflict(`Run ${id}'s task ${row.taskId} was deleted`, [{ field: 'taskId', reason: `task ${row.taskId} no longer exists` }]);
    const now = this.clock.now();
    const created = await insertManualRun(em, {
      tenantId,
      taskId: task.id,
      engineGroup: locked.engineGroup,
      priority: task.priority,
      params: row.params,
      flowParams: row.flowParams,
      now,
    });
    // Due now: the engines hear of it once it is committed, not at their next poll.
    afterCommit(em, () => this.wakeups.wake({ tenantId, engineGroup: locked.engineGroup, dueAt: now, runIds: [created.id] }));
    return created;
  }

  /**
   * A bulk action of the runs list: every id in one transaction, one result per id in the order
   * given (an id that fails — missing, another tenant's, in the wrong state — is a result with
   * its status and reason, and does not undo the others).
   */
  bulk(tenantId: string, ids: readonly number[], action: 'cancel' | 'rerun'): Promise<BulkRunResultView[]> {
    const unique = [...new Set(ids)];
    return inTransaction(this.dataSource, async (em) => {
      const { runs, tasks } = await findTenantRuns(em, { tenantId, ids: unique });
      const results: BulkRunResultView[] = [];
      if (action === 'cancel') {
        const outcomes = await this.runChanges.cancelEach(em, tenantId, unique, runs);
        outcomes.forEach((outcome, i) => results.push(outcome instanceof ApiError ? refused(unique[i], outcome) : { id: unique[i], status: 200, runId: unique[i], message: null }));
      } else {
        for (const id of unique) {
          try {
            results.push({ id, status: 201, runId: (await this.rerunIn(em, tenantId, id, runs.get(id), tasks)).id, message: null });
          } catch (error) {
            if (!(error instanceof ApiError)) throw error;
            results.push(refused(id, error));
          }
        }
      }
      // One record for the request, naming what it did; a request that changed no run records nothing.
      const done = results.filter((r) => r.runId !== null).map((r) => ({ id: r.id, runId: r.runId }));
      if (done.length > 0) await auditChange(em, { tenantId, objectType: 'run', objectId: null, after: { action, runs: done } });
      else auditNoChange();
      return results;
    });
  }

  /** Cancels a run that is not over yet (RunChangesService.cancelOne), answered as its detail view. */
  async cancel(tenantId: string, id: number): Promise<RunDetailView> {
    await inTransaction(this.dataSource, async (em) => {
      const row = await this.runChanges.cancelOne(em, tenantId, id, (await findRun(em, tenantId, id)) ?? undefined);
      await auditChange(em, { tenantId, objectType: 'run', objectId: id, before: { taskId: row.taskId, state: row.state }, after: { taskId: row.taskId, state: 'CANCELLED' } });
    });
    return this.runs.get(tenantId, id);
  }
}

/** A bulk result for an id its action refused: the refusal's status and message. */
function refused(id: number, error: ApiError): BulkRunResultView {
  const body = error.getResponse() as { message: string };
  return { id, status: error.getStatus(), runId: null, message: body.message };
}
