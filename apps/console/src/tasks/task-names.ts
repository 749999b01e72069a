import type { EntityManager } from 'typeorm';
import { findTaskIdByName, isUniqueViolation } from '@baton/persistence';
import { conflict } from '../common/api-error';

/** 409 when another task of the tenant has this name (`exceptId`: the task being saved). */
export async function assertNameFree(em: EntityManager, tenantId: string, name: string, exceptId: number | null): Promise<void> {
  const existing = await findTaskIdByName(em, tenantId, name);
  if (existing !== null && existing !== exceptId) throw duplicateName(name);
}

/** Maps a unique-key violation (a concurrent writer took the name) to the same 409 as the check. */
export async function refusingTakenName<T>(name: string | (() => string), work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateName(typeof name === 'function' ? name() : name);
    throw error;
  }
}

function duplicateName(name: string) {
  return conflict(`A task named "${name}" already exists`, [{ field: 'name', reason: `a task named "${name}" already exists` }]);
}
