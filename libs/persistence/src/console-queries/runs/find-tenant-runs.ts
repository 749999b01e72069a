import { In, type EntityManager } from 'typeorm';
import { RunEntity, TaskEntity } from '../../entities';
import { findRuns } from './find-run';

/**
 * The runs of `ids` that belong to the tenant (another tenant's id reads as missing), and the
 * tasks they are runs of — what a bulk action on the runs list needs to decide per id.
 *
 *   SELECT … FROM runs WHERE tenant_id = ? AND id IN (…)
 *   SELECT … FROM tasks WHERE tenant_id = ? AND id IN (…)
 */
export async function findTenantRuns(
  manager: EntityManager,
  input: { tenantId: string; ids: readonly number[] },
): Promise<{ runs: Map<number, RunEntity>; tasks: Map<number, TaskEntity> }> {
  const runs = await findRuns(manager, input.tenantId, input.ids);
  const taskIds = [...new Set([...runs.values()].map((r) => r.taskId))];
  const tasks = taskIds.length ? await manager.find(TaskEntity, { where: { tenantId: input.tenantId, id: In(taskIds) } }) : [];
  return { runs, tasks: new Map(tasks.map((t) => [t.id, t])) };
}
