import type { EntityManager } from 'typeorm';
import { execute } from '../sql';

/**
 * This node's clock offset from the database's, as last measured (ClockWatch), for the operator's
 * page: `UPDATE engine_nodes SET clock_offset_ms = ? WHERE id = ?`. A row of its own, by primary
 * key, once a heartbeat period: the heartbeat's guarded update says nothing about clocks.
 */
export async function recordEngineClockOffset(manager: EntityManager, id: string, clockOffsetMs: number): Promise<void> {
  await execute(manager, 'UPDATE engine_nodes SET clock_offset_ms = ? WHERE id = ?', [clockOffsetMs, id]);
}
