import { createHash } from 'node:crypto';
import type { TaskDefinition } from '@baton/domain';
import { fileTask, type FileTask } from './file-task';

/**
 * The hash a managed task keeps of the definition its file gave it. The file's form (fixed key
 * order, no tenant) makes it the same whether taken from the file or from the stored row, so a
 * task nobody edited since has no drift.
 */
export function managedHash(task: FileTask): string {
  return createHash('sha256').update(JSON.stringify(task)).digest('hex');
}

/** Whether a managed task's definition differs from what its file last applied (false for a task not managed). */
export function hasDrifted(definition: TaskDefinition, storedHash: string | null): boolean {
  return storedHash !== null && managedHash(fileTask(definition)) !== storedHash;
}
