import type { EntityManager } from 'typeorm';
import type { TaskDefinition } from '@baton/domain';
import { insertTaskVersions } from '@baton/persistence';
import { currentActorName } from '../audit';

/** A task's definition at a version, as a change leaves it. */
export interface ChangedTaskVersion {
  tenantId: string;
  taskId: number;
  version: number;
  definition: TaskDefinition;
}

/**
 * Keeps a version of each changed task, in the change's transaction, named after who made it (the
 * request's actor): a task's saves, restores and applies, and a calendar's rename, which changes
 * the definition of every task naming it.
 */
export function keepTaskVersions(em: EntityManager, versions: readonly ChangedTaskVersion[], at: number): Promise<void> {
  const actorName = currentActorName();
  return insertTaskVersions(em, versions.map((v) => ({ ...v, at, actorName })));
}
