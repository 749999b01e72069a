import type { EntityManager } from 'typeorm';
import type { TaskDefinition } from '@baton/domain';
import { chunks, execute } from '../sql';

export interface NewTaskVersion {
  tenantId: string;
  taskId: number;
  version: number;
  at: number;
  actorName: string | null;
  definition: TaskDefinition;
}

/**
 * Keeps the versions a change made (one task saved, or a batch created, or a group paused), in
 * the change's transaction:
 *
 *   INSERT INTO task_versions (tenant_id, task_id, version, at, actor_name, definition) VALUES (…), (…)
 *
 * Multi-row, 500 a statement. The unique key (task_id, version) refuses a version written twice:
 * two saves of one task are serialised by the task's own guarded version update first.
 */
export async function insertTaskVersions(manager: EntityManager, versions: readonly NewTaskVersion[]): Promise<void> {
  for (const part of chunks(versions)) {
    await execute(
      manager,
      `INSERT INTO task_versions (tenant_id, task_id, version, at, actor_name, definition) VALUES ${part.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
      part.flatMap((v) => [v.tenantId, v.taskId, v.version, v.at, v.actorName === null ? null : v.actorName.slice(0, 200), JSON.stringify(v.definition)]),
    );
  }
}
