import type { EntityManager } from 'typeorm';
import { execute, num } from '../sql';

/**
 * An executor's last heartbeat said it is shutting down with nothing in flight: a graceful stop.
 * It goes DOWN at once, marked stopped, so no engine waits out its heartbeats to declare it down
 * with a CRITICAL EXECUTOR_DOWN alarm (the watchdog looks at UP executors only), and its return
 * (a restart) raises no EXECUTOR_UP (recordExecutorHeartbeat revives a stopped one quietly).
 *
 *   UPDATE executors SET state = 'DOWN', in_flight = 0, heartbeat_at = ?, stopped_at = ? WHERE tenant_id = ? AND app = ? AND url = ?
 *   SELECT id FROM executors WHERE tenant_id = ? AND app = ? AND url = ?
 *
 * Idempotent (the announce and the last word may both say so). Its id, or null when the executor
 * was never registered.
 */
export async function markExecutorStopped(manager: EntityManager, input: { tenantId: string; app: string; url: string; now: number }): Promise<number | null> {
  const key = [input.tenantId, input.app, input.url];
  await execute(manager, `UPDATE executors SET state = 'DOWN', in_flight = 0, heartbeat_at = ?, stopped_at = ? WHERE tenant_id = ? AND app = ? AND url = ?`, [input.now, input.now, ...key]);
  const { rows } = await execute<{ id: number | string }>(manager, 'SELECT id FROM executors WHERE tenant_id = ? AND app = ? AND url = ?', key);
  return rows.length ? num(rows[0].id) : null;
}
