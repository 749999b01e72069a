import { In, Not, type EntityManager } from 'typeorm';
import type { RunState } from '@baton/domain';
import { RunEntity } from '../../entities';
import { ofTenant } from '../tenant-scope';

/** Runs not yet begun: a "last run" is one of the others. */
const NOT_BEGUN: RunState[] = ['PENDING', 'CLAIMED'];
const FINISHED: RunState[] = ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED'];

export type LastRun = Pick<RunEntity, 'id' | 'state' | 'scheduledAt' | 'finishedAt' | 'error'>;

/**
 * Each task's last run (begun) and last result (finished), for the task list:
 *
 *   SELECT id, state, scheduled_at, finished_at, error FROM runs
 *    WHERE task_id = ? AND tenant_id = ? AND state NOT IN ('PENDING', 'CLAIMED') ORDER BY scheduled_at DESC, id DESC LIMIT 1
 *   … AND state IN ('SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED') …
 *
 * Two indexed probes per task (ix_runs_task_time, read backwards) rather than one query over
 * all the tasks' runs: a page holds at most a few hundred tasks, and a probe stops at its row.
 */
export function findLastRuns(manager: EntityManager, tenantId: string, taskIds: readonly number[]): Promise<Array<{ taskId: number; lastRun: LastRun | null; lastResult: LastRun | null }>> {
  const select = { id: true, state: true, scheduledAt: true, finishedAt: true, error: true } as const;
  const order = { scheduledAt: 'DESC', id: 'DESC' } as const;
  return Promise.all(
    taskIds.map(async (taskId) => {
      const [lastRun, lastResult] = await Promise.all([
        manager.findOne(RunEntity, { where: ofTenant(tenantId, { taskId, state: Not(In(NOT_BEGUN)) }), select, order }),
        manager.findOne(RunEntity, { where: ofTenant(tenantId, { taskId, state: In(FINISHED) }), select, order }),
      ]);
      return { taskId, lastRun, lastResult };
    }),
  );
}
