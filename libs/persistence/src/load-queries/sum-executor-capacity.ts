import type { EntityManager } from 'typeorm';
import type { ExecutorCapacity } from '@baton/domain';
import { execute, num } from '../engine-queries/sql';

/**
 * The UP executors of every tenant (or one), their pools and what they said was in flight:
 *
 *   SELECT tenant_id, COUNT(*), SUM(capacity), SUM(in_flight) FROM executors
 *    WHERE state = 'UP' [AND tenant_id = ?] GROUP BY tenant_id
 *
 * The registry is one row per executor process, small next to runs; one tenant's is the
 * tenant_id prefix of uq_executors_tenant_app_url. A tenant with no UP executor is absent.
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
