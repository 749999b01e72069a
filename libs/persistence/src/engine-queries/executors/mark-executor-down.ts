import type { EntityManager } from 'typeorm';
import { execute } from '../sql';

/**
 * The EXECUTOR_DOWN election:
 *
 *   UPDATE executors SET state = 'DOWN' WHERE id = ? AND state = 'UP' AND heartbeat_at < ?
 *
 * Every engine's watchdog may see the executor silent; the first update wins and writes the
 * alarm (same transaction). A heartbeat that arrived meanwhile (heartbeat_at moved) makes it
 * match nothing: the executor is alive after all.
 */
export async function markExecutorDown(manager: EntityManager, executorId: number, heartbeatBefore: number): Promise<boolean> {
  const { affected } = await execute(manager, `UPDATE executors SET state = 'DOWN' WHERE id = ? AND state = 'UP' AND heartbeat_at < ?`, [
    executorId,
    heartbeatBefore,
  ]);
  return affected > 0;
}
