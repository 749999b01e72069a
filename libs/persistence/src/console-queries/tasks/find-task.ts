import { In, type EntityManager } from 'typeorm';
import { dialectOf } from '../../engine-queries/sql';
import { TaskEntity } from '../../entities';
import { ofTenant } from '../tenant-scope';

/**
 * A task of the tenant by id, or null (another tenant's task is as absent as a missing one):
 *
 *   SELECT * FROM tasks WHERE id = ? AND tenant_id = ?                            -- primary key
 */
export function findTask(manager: EntityManager, tenantId: string, id: number): Promise<TaskEntity | null> {
  return manager.findOneBy(TaskEntity, ofTenant(tenantId, { id }));
}

/**
 * findTask, locked for a change on MySQL: a save or a pause that withdraws prepared fires rewinds
 * the task's next fire time and fire count, and the planner (which takes tasks SKIP LOCKED) must
 * not plan it meanwhile from the values being replaced:
 *
 *   SELECT * FROM tasks WHERE id = ? AND tenant_id = ? [FOR UPDATE]               -- primary key
 */
export function lockTask(manager: EntityManager, tenantId: string, id: number): Promise<TaskEntity | null> {
  const query = manager.createQueryBuilder(TaskEntity, 't').where('t.id = :id AND t.tenantId = :tenantId', { id, tenantId });
  if (dialectOf(manager) === 'mysql') query.setLock('pessimistic_write');
  return query.getOne();
}

/**
 * The names of the tenant's tasks of these ids (edges show them):
 *
 *   SELECT id, name FROM tasks WHERE tenant_id = ? AND id IN (…)
 */
export async function taskNames(manager: EntityManager, tenantId: string, ids: readonly number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await manager.find(TaskEntity, { where: ofTenant(tenantId, { id: In([...ids]) }), select: { id: true, name: true } });
  return new Map(rows.map((t) => [t.id, t.name]));
}

/**
 * Whether the tenant has this task:
 *
 *   SELECT 1 FROM tasks WHERE id = ? AND tenant_id = ? LIMIT 1                     -- primary key
 */
export function taskExists(manager: EntityManager, tenantId: string, id: number): Promise<boolean> {
  return manager.existsBy(TaskEntity, ofTenant(tenantId, { id }));
}

/**
 * Which of these ids are the tenant's tasks (the others read as missing):
 *
 *   SELECT id FROM tasks WHERE tenant_id = ? AND id IN (…)
 */
export async function ownedTaskIds(manager: EntityManager, tenantId: string, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await manager.find(TaskEntity, { where: ofTenant(tenantId, { id: In([...ids]) }), select: { id: true } });
  return rows.map((r) => r.id);
}
