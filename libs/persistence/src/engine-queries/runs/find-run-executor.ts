import type { EntityManager } from 'typeorm';
import type { ExecutorWire } from '@baton/domain';
import { execute } from '../sql';

/**
 * The executor a run of the tenant was last sent to, and how it is spoken to — where an XXL-JOB
 * callback's log is pulled from (the callback names the trigger, not the executor):
 *
 *   SELECT e.url, e.wire FROM runs r JOIN executors e ON e.id = r.executor_id WHERE r.id = ? AND r.tenant_id = ?
 *
 * A primary-key lookup; the tenant keeps another tenant's run (a forged logId) out. Null when the
 * run is not the tenant's or was never sent.
 */
export async function findRunExecutor(manager: EntityManager, input: { tenantId: string; runId: number }): Promise<{ url: string; wire: ExecutorWire } | null> {
  const { rows } = await execute<{ url: string; wire: string }>(manager, 'SELECT e.url, e.wire FROM runs r JOIN executors e ON e.id = r.executor_id WHERE r.id = ? AND r.tenant_id = ?', [
    input.runId,
    input.tenantId,
  ]);
  if (rows.length === 0) return null;
  return { url: String(rows[0].url), wire: rows[0].wire === 'xxl-job' ? 'xxl-job' : 'baton' };
}
