import type { EntityManager } from 'typeorm';
import { execute } from '../sql';

/**
 * This node is alive: `UPDATE engine_nodes SET heartbeat_at = now WHERE id = me AND state = 'UP'`.
 *
 * Guarded on UP: false means a survivor declared this node dead (it was silent too long — a
 * stalled event loop, a lost database) and took its runs over. The caller then re-registers
 * and keeps going; whatever it still holds in memory fails its guarded dispatch transition
 * (claimed_by is no longer this node), so nothing fires twice.
 */
export async function heartbeatEngineNode(manager: EntityManager, id: string, now: number): Promise<boolean> {
  const { affected } = await execute(manager, `UPDATE engine_nodes SET heartbeat_at = ? WHERE id = ? AND state = 'UP'`, [now, id]);
  return affected > 0;
}
