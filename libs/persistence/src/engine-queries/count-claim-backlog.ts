import type { EntityManager } from 'typeorm';
import { dialectOf, execute, num, placeholders } from './sql';

/**
 * How many runs of some engine groups are claimable now or soon, or claimed and not yet sent —
 * the work the group's live engines share (the claimer's fair share, see ClaimerService):
 *
 *   SELECT COUNT(*) FROM (
 *     SELECT 1 FROM runs FORCE INDEX (ix_runs_claim)
 *      WHERE engine_group IN (…) AND (state IN ('PENDING', 'RETRY_WAIT') AND due_at <= ? OR state = 'CLAIMED')
 *      LIMIT ?) backlog
 *
 * Both ranges are prefixes of ix_runs_claim (engine_group, state, due_at), so this counts index
 * entries, never rows; `LIMIT cap` bounds that work — the caller only needs to know whether the
 * backlog reaches the level at which its share stops mattering.
 */
export async function countClaimBacklog(manager: EntityManager, input: { groups: readonly string[]; dueBefore: number; cap: number }): Promise<number> {
  if (input.groups.length === 0) return 0;
  const { rows } = await execute<{ n: unknown }>(
    manager,
    `SELECT COUNT(*) AS n FROM (
       SELECT 1 FROM runs ${dialectOf(manager) === 'mysql' ? 'FORCE INDEX (ix_runs_claim)' : ''}
        WHERE engine_group IN (${placeholders(input.groups.length)})
          AND (state IN ('PENDING', 'RETRY_WAIT') AND due_at <= ? OR state = 'CLAIMED')
        LIMIT ?) backlog`,
    [...input.groups, input.dueBefore, input.cap],
  );
  return num(rows[0].n);
}
