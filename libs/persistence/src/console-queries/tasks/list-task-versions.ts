import type { EntityManager } from 'typeorm';
import type { TaskDefinition } from '@baton/domain';
import { execute, num } from '../../engine-queries/sql';

export interface TaskVersionRow {
  version: number;
  at: number;
  actorName: string | null;
  definition: TaskDefinition;
}

/**
 * A task's versions, newest first (the task page's Versions tab), or the one numbered `version`:
 *
 *   SELECT version, at, actor_name, definition FROM task_versions
 *    WHERE task_id = ? AND tenant_id = ? [AND version = ?] ORDER BY version DESC LIMIT ?
 *
 * A range of uq_task_versions_task; tenant_id is checked on each row, so another tenant's task id
 * finds nothing.
 */
export async function listTaskVersions(manager: EntityManager, input: { tenantId: string; taskId: number; version?: number; limit: number }): Promise<TaskVersionRow[]> {
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT version, at, actor_name, definition FROM task_versions
      WHERE task_id = ? AND tenant_id = ?${input.version === undefined ? '' : ' AND version = ?'} ORDER BY version DESC LIMIT ?`,
    [input.taskId, input.tenantId, ...(input.version === undefined ? [] : [input.version]), input.limit],
  );
  return rows.map((r) => ({ version: num(r.version), at: num(r.at), actorName: (r.actor_name as string | null) ?? null, definition: JSON.parse(String(r.definition)) as TaskDefinition }));
}
