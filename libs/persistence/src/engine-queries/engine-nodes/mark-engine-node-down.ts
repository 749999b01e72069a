import type { EntityManager } from 'typeorm';
import { execute } from '../sql';

/**
 * `UPDATE engine_nodes SET state = 'DOWN' WHERE id = ? AND state = 'UP' [AND heartbeat_at < ?]`
 *
 * With `heartbeatBefore` this is the takeover's election: every survivor that saw the node
 * silent runs it, the row lock serialises them, and only the first still finds it UP and
 * stale — it alone writes the ENGINE_DOWN alarm and releases the runs (same transaction).
 * If the node came back meanwhile (fresh heartbeat), nobody wins. Without it: the node's own
 * graceful shutdown. True when this call moved the row.
 */
export async function markEngineNodeDown(manager: EntityManager, id: string, options: { heartbeatBefore?: number } = {}): Promise<boolean> {
  const stale = options.heartbeatBefore !== undefined;
  const { affected } = await execute(
    manager,
    `UPDATE engine_nodes SET state = 'DOWN'
      WHERE id = ? AND state = 'UP' ${stale ? 'AND heartbeat_at < ?' : ''}`,
    stale ? [id, options.heartbeatBefore] : [id],
  );
  return affected > 0;
}
