import type { EntityManager } from 'typeorm';
import type { ExecutorWire } from '@baton/domain';
import { execute, num, placeholders } from '../sql';

export interface UpExecutorRow {
  id: number;
  tenantId: string;
  app: string;
  url: string;
  capacity: number;
  queueLimit: number;
  inFlight: number;
  /** The executor protocol it speaks (its heartbeat's protocolVersion): 2 and later take runs sent ahead of their instant. */
  protocolVersion: number;
  /** The tenant secret version that verified its latest heartbeat; null before this was recorded. */
  secretVersion: number | null;
  /** How it is spoken to: the executor protocol, or XXL-JOB's. */
  wire: ExecutorWire;
}

/**
 * The routing table of an engine: UP executors of the tenants its groups serve.
 *
 *   SELECT e.id, e.tenant_id, e.app, e.url, e.capacity, e.queue_limit, e.in_flight, e.protocol_version, e.secret_version, e.wire
 *     FROM executors e JOIN tenants t ON t.id = e.tenant_id
 *    WHERE t.engine_group IN (…) AND e.state = 'UP'
 *
 * Read about once a second by every engine (ExecutorRegistry) instead of once per dispatch:
 * the UP executors are few (one row per live executor process) and change slowly. The rows of
 * executors long DOWN are not: every restart of a pod with a new address leaves one, kept for its
 * runs' history, so the read is the `state = 'UP'` range of ix_executors_state, not the table.
 */
/** The read for `groups` groups: exported so the plan test EXPLAINs this very text. */
export function findUpExecutorsSql(groups: number): string {
  return `SELECT e.id, e.tenant_id, e.app, e.url, e.capacity, e.queue_limit, e.in_flight, e.protocol_version, e.secret_version, e.wire
       FROM executors e JOIN tenants t ON t.id = e.tenant_id
      WHERE t.engine_group IN (${placeholders(groups)}) AND e.state = 'UP'
      ORDER BY e.id`;
}

export async function findUpExecutors(manager: EntityManager, groups: readonly string[]): Promise<UpExecutorRow[]> {
  if (groups.length === 0) return [];
  const { rows } = await execute<Record<string, unknown>>(manager, findUpExecutorsSql(groups.length), [...groups]);
  return rows.map((r) => ({
    id: num(r.id),
    tenantId: String(r.tenant_id),
    app: String(r.app),
    url: String(r.url),
    capacity: num(r.capacity),
    queueLimit: num(r.queue_limit),
    inFlight: num(r.in_flight),
    protocolVersion: num(r.protocol_version),
    secretVersion: r.secret_version === null || r.secret_version === undefined ? null : num(r.secret_version),
    wire: r.wire === 'xxl-job' ? 'xxl-job' : 'baton',
  }));
}
