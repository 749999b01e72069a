import type { EntityManager } from 'typeorm';
import { loadCount } from '@baton/domain';
import { dialectOf, execute, num, placeholders } from '../engine-queries/sql';
import type { TenantRunCounts } from './count-tenant-runs';

/**
 * Every tenant's runs due, held and in flight in some engine groups together, each counted up to
 * `cap` — what the engine's per-tenant metrics put under `tenant="_other"` after the tenants
 * that have a label of their own:
 *
 *   SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM runs WHERE engine_group IN (…) AND state IN ('PENDING', 'RETRY_WAIT') AND due_at <= ? LIMIT cap + 1) d) AS due,
 *          (… state = 'CLAIMED' …) AS held, (… state IN ('DISPATCHED', 'ACCEPTED') …) AS in_flight
 *
 * Ranges of ix_runs_claim (engine_group, state, due_at, …), index only, stopped by the LIMIT (as
 * count-claim-backlog.ts): one read of at most 3 × (cap + 1) entries, instead of a count per
 * tenant for however many tenants there are.
 */
export async function countGroupRuns(manager: EntityManager, input: { groups: readonly string[]; now: number; cap: number }): Promise<TenantRunCounts> {
  const { groups, now, cap } = input;
  if (groups.length === 0) return { due: loadCount(0, cap), held: loadCount(0, cap), inFlight: loadCount(0, cap) };
  const ix = dialectOf(manager) === 'mysql' ? 'FORCE INDEX (ix_runs_claim)' : '';
  const inGroups = `engine_group IN (${placeholders(groups.length)})`;
  const { rows } = await execute<{ due: unknown; held: unknown; in_flight: unknown }>(
    manager,
    `SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM runs ${ix} WHERE ${inGroups} AND state IN ('PENDING', 'RETRY_WAIT') AND due_at <= ? LIMIT ?) d) AS due,
            (SELECT COUNT(*) FROM (SELECT 1 FROM runs ${ix} WHERE ${inGroups} AND state = 'CLAIMED' LIMIT ?) h) AS held,
            (SELECT COUNT(*) FROM (SELECT 1 FROM runs ${ix} WHERE ${inGroups} AND state IN ('DISPATCHED', 'ACCEPTED') LIMIT ?) f) AS in_flight`,
    [...groups, now, cap + 1, ...groups, cap + 1, ...groups, cap + 1],
  );
  return { due: loadCount(num(rows[0].due), cap), held: loadCount(num(rows[0].held), cap), inFlight: loadCount(num(rows[0].in_flight), cap) };
}
