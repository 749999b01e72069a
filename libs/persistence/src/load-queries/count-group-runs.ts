import type { EntityManager } from 'typeorm';
import { loadCount } from '@baton/domain';
import { dialectOf, execute, num, placeholders } from '../engine-queries/sql';
import { atExecutors, type TenantRunCounts } from './count-tenant-runs';
import { INSTANT_TO_COME } from './sent-ahead';

/**
 * Every tenant's runs due, held, in flight and sent ahead in some engine groups together, each
 * counted up to `cap` — what the engine's per-tenant metrics put under `tenant="_other"` after the
 * tenants that have a label of their own:
 *
 *   SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM runs WHERE engine_group IN (…) AND state IN ('PENDING', 'RETRY_WAIT') AND due_at <= ? LIMIT cap + 1) d) AS due,
 *          (… state = 'CLAIMED' …) AS held, (… state IN ('DISPATCHED', 'ACCEPTED') …) AS at_executors,
 *          (… state IN ('DISPATCHED', 'ACCEPTED') AND COALESCE(instant_at, due_at) > ? …) AS sent_ahead
 *
 * Ranges of ix_runs_claim (engine_group, state, due_at, …), index only but the runs sent ahead
 * (their rows' instant_at: countTenantRuns), stopped by the LIMIT (as count-claim-backlog.ts): one
 * read of at most 4 × (cap + 1) entries, instead of a count per tenant for however many tenants
 * there are.
 */
export async function countGroupRuns(manager: EntityManager, input: { groups: readonly string[]; now: number; cap: number }): Promise<TenantRunCounts> {
  const { groups, now, cap } = input;
  if (groups.length === 0) return atExecutors({ due: loadCount(0, cap), held: loadCount(0, cap) }, loadCount(0, cap), loadCount(0, cap));
  const ix = dialectOf(manager) === 'mysql' ? 'FORCE INDEX (ix_runs_claim)' : '';
  const inGroups = `engine_group IN (${placeholders(groups.length)})`;
  const { rows } = await execute<{ due: unknown; held: unknown; at_executors: unknown; sent_ahead: unknown }>(
    manager,
    `SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM runs ${ix} WHERE ${inGroups} AND state IN ('PENDING', 'RETRY_WAIT') AND due_at <= ? LIMIT ?) d) AS due,
            (SELECT COUNT(*) FROM (SELECT 1 FROM runs ${ix} WHERE ${inGroups} AND state = 'CLAIMED' LIMIT ?) h) AS held,
            (SELECT COUNT(*) FROM (SELECT 1 FROM runs ${ix} WHERE ${inGroups} AND state IN ('DISPATCHED', 'ACCEPTED') LIMIT ?) f) AS at_executors,
            (SELECT COUNT(*) FROM (SELECT 1 FROM runs ${ix} WHERE ${inGroups} AND state IN ('DISPATCHED', 'ACCEPTED') AND ${INSTANT_TO_COME} LIMIT ?) a) AS sent_ahead`,
    [...groups, now, cap + 1, ...groups, cap + 1, ...groups, cap + 1, ...groups, now, cap + 1],
  );
  return atExecutors({ due: loadCount(num(rows[0].due), cap), held: loadCount(num(rows[0].held), cap) }, loadCount(num(rows[0].at_executors), cap), loadCount(num(rows[0].sent_ahead), cap));
}
