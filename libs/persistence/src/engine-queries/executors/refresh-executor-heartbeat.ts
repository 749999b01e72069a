import type { EntityManager } from 'typeorm';
import { execute } from '../sql';

/**
 * An engine heard from an UP executor on its own initiative (an XXL-JOB executor answered a
 * `beat`): its heartbeat is refreshed, and nothing else.
 *
 *   UPDATE executors SET heartbeat_at = CASE WHEN heartbeat_at > ? THEN heartbeat_at ELSE ? END WHERE id = ? AND state = 'UP'
 *
 * Guarded on UP: a beat answered just before the executor's registryRemove landed must not bring
 * it back (a registration does that); heartbeat_at never goes back (as in recordExecutorHeartbeat).
 * True when it was UP.
 */
export async function refreshExecutorHeartbeat(manager: EntityManager, input: { executorId: number; now: number }): Promise<boolean> {
  const result = await execute(manager, "UPDATE executors SET heartbeat_at = CASE WHEN heartbeat_at > ? THEN heartbeat_at ELSE ? END WHERE id = ? AND state = 'UP'", [
    input.now,
    input.now,
    input.executorId,
  ]);
  return result.affected > 0;
}
