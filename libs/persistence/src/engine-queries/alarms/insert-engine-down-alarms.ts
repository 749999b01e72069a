import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { chunks, execute } from '../sql';

export interface EngineDownAlarm {
  tenantId: string;
  message: string;
  /** Details for the alarm body, which the tenant reads (cause, last heartbeat, its runs taken over): nothing that names a node or host. */
  data: Record<string, unknown>;
}

/**
 * ENGINE_DOWN alarms, CRITICAL, one per affected tenant, written by the survivor that won the
 * takeover in the same transaction as the node's move to DOWN and the release of its runs —
 * the outbox: the relay publishes them to `baton.alarms.<tenant>` later, and a rolled-back
 * takeover leaves no alarm behind.
 *
 *   INSERT INTO alarms (uid, tenant_id, type, severity, task_id, run_id, executor_id, message, data, count, raised_at)
 *   VALUES (?, ?, 'ENGINE_DOWN', 'CRITICAL', NULL, NULL, NULL, ?, ?, 1, ?), …
 *
 * Each gets a new UUID as its stable id (alarms.uid).
 */
export async function insertEngineDownAlarms(manager: EntityManager, alarms: readonly EngineDownAlarm[], now: number): Promise<void> {
  for (const chunk of chunks(alarms)) {
    const values = chunk.map(() => "(?, ?, 'ENGINE_DOWN', 'CRITICAL', NULL, NULL, NULL, ?, ?, 1, ?)").join(', ');
    await execute(
      manager,
      `INSERT INTO alarms (uid, tenant_id, type, severity, task_id, run_id, executor_id, message, data, count, raised_at)
       VALUES ${values}`,
      chunk.flatMap((a) => [randomUUID(), a.tenantId, a.message.slice(0, 1000), JSON.stringify(a.data), now]),
    );
  }
}
