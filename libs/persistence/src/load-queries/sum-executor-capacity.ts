import type { EntityManager } from 'typeorm';
import type { ExecutorCapacity } from '@baton/domain';
import { execute, num } from '../engine-queries/sql';

/**
 * The UP executors of every tenant (or one), their pools and what they said was in flight:
 *
 *   SELECT tenant_id, COUNT(*), SUM(capacity), SUM(in_flight) FROM executors
 *    WHERE state = 'UP' [AND tenant_id = ?] GROUP BY tenant_id
 *
 * The `state = 'UP'` range of ix_executors_state (state, tenant_id, heartbeat_at), grouped in its
 * order; one tenant's is its (UP, tenant) prefix: the rows of executors long DOWN, which every
 * restart of a pod at a new address leaves, are not read. A tenant with no UP executor is absent.
 */
export async function sumExecutorCapacity(manager: EntityManager, input: { tenantId?: string } = {}): Promise<Map<string, ExecutorCapacity>> {
  const one = input.tenantId !== undefined;
  const { rows } = await execute<{ tenant_id: string; up: unknown; capacity: unknown; in_flight: unknown }>(
    manager,
    `SELECT tenant_id, COUNT(*) AS up, SUM(capacity) AS capacity, SUM(in_flight) AS in_flight FROM executors
      WHERE state = 'UP'${one ? ' AND tenant_id = ?' : ''} GROUP BY tenant_id`,
    one ? [input.tenantId] : [],
  );
  return new Map(rows.map((r) => [String(r.tenant_id), { up: num(r.up), capacity: num(r.capacity), inFlight: num(r.in_flight) }]));
}
