import type { EntityManager } from 'typeorm';
import type { ExecutorWire } from '@baton/domain';
import { execute, numOrNull } from '../sql';

/**
 * The executor a run of the tenant was last sent to, how it is spoken to, and when the current
 * attempt was sent — where an XXL-JOB callback's log is pulled from (the callback names the
 * trigger, not the executor) and the start it reports none of:
 *
 *   SELECT e.url, e.wire, r.dispatched_at FROM runs r JOIN executors e ON e.id = r.executor_id WHERE r.id = ? AND r.tenant_id = ?
 *
 * A primary-key lookup; the tenant keeps another tenant's run (a forged logId) out. Null when the
 * run is not the tenant's or was never sent.
 */
export async function findRunExecutor(manager: EntityManager, input: { tenantId: string; runId: number }): Promise<{ url: string; wire: ExecutorWire; dispatchedAt: number | null } | null> {
  const { rows } = await execute<{ url: string; wire: string; dispatched_at: unknown }>(manager, 'SELECT e.url, e.wire, r.dispatched_at FROM runs r JOIN executors e ON e.id = r.executor_id WHERE r.id = ? AND r.tenant_id = ?', [
    input.runId,
    input.tenantId,
  ]);
  if (rows.length === 0) return null;
  return { url: String(rows[0].url), wire: rows[0].wire === 'xxl-job' ? 'xxl-job' : 'baton', dispatchedAt: numOrNull(rows[0].dispatched_at) };
}
