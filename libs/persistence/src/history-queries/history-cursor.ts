import type { EntityManager } from 'typeorm';
import { dialectOf, execute, num, placeholders } from '../engine-queries/sql';

export interface HistoryCursor {
  tenantId: string;
  rolledUntil: number;
  settledUntil: number;
  logsPurgedUntil: number;
  purgePosition: number;
}

/**
 * Gives the history job of `tenantId` to `worker` until `until`, when nobody else holds it:
 *
 *   INSERT IGNORE INTO history_cursors (…) VALUES (?, 0, 0, 0, 0, NULL, 0)      -- first time
 *   UPDATE history_cursors SET worker = ?, worker_until = ?
 *    WHERE tenant_id = ? AND (worker = ? OR worker IS NULL OR worker_until < ?)
 *
 * A conditional update rather than a row lock held for the whole job: the job runs many short
 * transactions (a minute of rollups, a batch of purge) and must not hold one open between them.
 * Returns the cursor when the lease is ours, else null.
 */
export async function leaseHistoryCursor(manager: EntityManager, input: { tenantId: string; worker: string; now: number; until: number }): Promise<HistoryCursor | null> {
  const verb = dialectOf(manager) === 'mysql' ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
  await execute(
    manager,
    `${verb} INTO history_cursors (tenant_id, rolled_until, settled_until, logs_purged_until, purge_position, worker, worker_until) VALUES (?, 0, 0, 0, 0, NULL, 0)`,
    [input.tenantId],
  );
  const { affected } = await execute(
    manager,
    `UPDATE history_cursors SET worker = ?, worker_until = ? WHERE tenant_id = ? AND (worker = ? OR worker IS NULL OR worker_until < ?)`,
    [input.worker, input.until, input.tenantId, input.worker, input.now],
  );
  if (affected === 0) return null;
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT rolled_until, settled_until, logs_purged_until, purge_position FROM history_cursors WHERE tenant_id = ?`,
    [input.tenantId],
  );
  const r = rows[0];
  return { tenantId: input.tenantId, rolledUntil: num(r.rolled_until), settledUntil: num(r.settled_until), logsPurgedUntil: num(r.logs_purged_until), purgePosition: num(r.purge_position) };
}

type CursorField = 'rolled_until' | 'settled_until' | 'logs_purged_until' | 'purge_position' | 'purge_due_at';

/**
 * Moves the cursor, only while `worker` still holds the lease (false when it lost it: another
 * engine took the tenant over after this one stalled past the lease, and its cursor wins):
 *
 *   UPDATE history_cursors SET rolled_until = ?, … WHERE tenant_id = ? AND worker = ?
 */
export async function advanceHistoryCursor(manager: EntityManager, tenantId: string, worker: string, to: Partial<Record<CursorField, number>>): Promise<boolean> {
  const fields = Object.entries(to) as Array<[CursorField, number]>;
  if (fields.length === 0) return true;
  const { affected } = await execute(manager, `UPDATE history_cursors SET ${fields.map(([f]) => `${f} = ?`).join(', ')} WHERE tenant_id = ? AND worker = ?`, [
    ...fields.map(([, v]) => v),
    tenantId,
    worker,
  ]);
  return affected > 0;
}

/** Lets another engine take the tenants `worker` held (at shutdown), without waiting for the lease to run out. */
export async function releaseHistoryCursors(manager: EntityManager, worker: string, tenantIds: readonly string[]): Promise<void> {
  if (tenantIds.length === 0) return;
  await execute(manager, `UPDATE history_cursors SET worker = NULL, worker_until = 0 WHERE worker = ? AND tenant_id IN (${placeholders(tenantIds.length)})`, [worker, ...tenantIds]);
}

/**
 * Up to where a tenant's runs are in the minute rollups (0: nothing rolled yet):
 *
 *   SELECT rolled_until FROM history_cursors WHERE tenant_id = ?
 */
export async function rolledUntilOf(manager: EntityManager, tenantId: string): Promise<number> {
  const { rows } = await execute<{ rolled_until: unknown }>(manager, `SELECT rolled_until FROM history_cursors WHERE tenant_id = ?`, [tenantId]);
  return rows.length === 0 ? 0 : num(rows[0].rolled_until);
}
