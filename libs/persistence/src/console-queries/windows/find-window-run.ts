import type { EntityManager } from 'typeorm';
import { RunEntity } from '../../entities';
import { dialectOf } from '../../engine-queries/sql';

/**
 * A key's open window's run, whole, once this transaction joined or opened it:
 *
 *   SELECT * FROM runs WHERE tenant_id = ? AND task_id = ? AND fire_key = ? [FOR UPDATE]   -- uq_runs_task_fire_key
 *
 * The row is this transaction's own write (locked already), so the read sees it as written.
 */
export async function findWindowRun(manager: EntityManager, ref: { tenantId: string; taskId: number; fireKey: string }): Promise<RunEntity | null> {
  const query = manager.createQueryBuilder(RunEntity, 'r').where('r.tenantId = :tenantId AND r.taskId = :taskId AND r.fireKey = :fireKey', ref);
  return (dialectOf(manager) === 'mysql' ? query.setLock('pessimistic_write') : query).getOne();
}
