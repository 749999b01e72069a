import type { EntityManager } from 'typeorm';
import { ACTIVE_STATES } from '@baton/domain';
import { RunEntity } from '../../entities';
import { ofTenant } from '../tenant-scope';
import { RUN_LIST_COLUMNS, type ListedRun } from './list-runs';

/**
 * The tenant's runs changed since `since` (the live runs page's push), at most `limit` of each
 * kind: runs going — the backlog of the tenant's group, ix_runs_claim's (engine_group, state) —
 * and runs ended since `endedSince` (ix_runs_tenant_finished): never a walk over the history.
 * Their list columns only (RUN_LIST_COLUMNS): a live page reads every 250 ms.
 *
 *   SELECT <RUN_LIST_COLUMNS> FROM runs WHERE engine_group = ? AND state IN (…active…) AND tenant_id = ? AND updated_at > ? LIMIT ?
 *   SELECT <RUN_LIST_COLUMNS> FROM runs WHERE tenant_id = ? AND finished_at > ? AND updated_at > ? LIMIT ?
 */
export async function findChangedRuns(
  manager: EntityManager,
  input: { tenantId: string; engineGroup: string; since: number; endedSince: number; limit: number },
): Promise<{ going: ListedRun[]; ended: ListedRun[] }> {
  const runs = () => manager.getRepository(RunEntity).createQueryBuilder('r').select(RUN_LIST_COLUMNS.map((c) => `r.${c}`));
  const [going, ended] = await Promise.all([
    runs()
      .where(ofTenant(input.tenantId, {}))
      .andWhere('r.engineGroup = :group AND r.state IN (:...active)', { group: input.engineGroup, active: ACTIVE_STATES })
      .andWhere('r.updatedAt > :since', { since: input.since })
      .take(input.limit)
      .getMany(),
    runs()
      .where(ofTenant(input.tenantId, {}))
      .andWhere('r.finishedAt > :endedSince', { endedSince: input.endedSince })
      .andWhere('r.updatedAt > :since', { since: input.since })
      .take(input.limit)
      .getMany(),
  ]);
  return { going, ended };
}
