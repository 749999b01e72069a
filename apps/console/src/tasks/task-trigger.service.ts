import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { paramsProblem } from '@baton/domain';
import type { RunWakeups } from '@baton/messaging';
import { afterCommit, findTask, insertManualRun, inTransaction, RunEntity } from '@baton/persistence';
import { auditChange } from '../audit';
import { notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import type { RunDetailView } from '../runs/dto/run.dto';
import { runDetailView } from '../runs/runs.service';
import { RUN_WAKEUPS } from '../wakeups/run-wakeups';
import { wakeupsGone } from '../wakeups/wakeups-gone';
import { ParamsCheck } from './params-check';
import { invalid } from './task-input';

/** Runs a task now (POST /api/tasks/{id}/trigger). */
@Injectable()
export class TaskTriggerService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly params: ParamsCheck,
    @Inject(RUN_WAKEUPS) private readonly wakeups: RunWakeups,
  ) {}

  /**
   * Runs a task now: a PENDING run, cause MANUAL, due now, with a snapshot of the task's params
   * (or of `params` when given, checked against its handler's params schema as a save checks
   * them: 400 naming each param that does not fit). Works on a paused task too: pausing stops
   * the schedule, not an explicit request.
   */
  async trigger(tenantId: string, id: number, params: unknown, flowParams?: unknown): Promise<RunDetailView> {
    if (params !== undefined) {
      const problem = paramsProblem(params);
      if (problem) invalid([problem]);
    }
    if (flowParams !== undefined) {
      const problem = paramsProblem(flowParams, 'flowParams');
      if (problem) invalid([problem]);
    }
    if (params !== undefined) {
      const task = await findTask(this.dataSource.manager, tenantId, id);
      if (!task) throw notFound('Task', id);
      await this.params.assertFit(this.dataSource.manager, tenantId, [{ executorApp: task.executorApp, handler: task.handler, params }]);
    }
    const answer = await inTransaction(this.dataSource, async (em) => {
      const task = await findTask(em, tenantId, id);
      if (!task) throw notFound('Task', id);
      const now = this.clock.now();
      const created = await insertManualRun(em, {
        tenantId,
        taskId: task.id,
        engineGroup: task.engineGroup,
        priority: task.priority,
        params: (params === undefined ? task.params : params) as RunEntity['params'],
        flowParams: flowParams === undefined ? null : JSON.stringify(flowParams),
        now,
      });
      // The run is due now: the engines hear of it once it is committed, not at their next poll.
      afterCommit(em, () => this.wakeups.wake({ tenantId, engineGroup: task.engineGroup, dueAt: now, runIds: [created.id] }));
      await auditChange(em, { tenantId, objectType: 'task', objectId: id, after: { runId: created.id, params: params ?? null, flowParams: flowParams ?? null } });
      return runDetailView(created, task.name);
    });
    await wakeupsGone();
    return answer;
  }
}
