import type { EntityManager } from 'typeorm';
import { TaskEntity, TenantEntity } from '../../entities';
import { dialectOf, execute } from '../../engine-queries/sql';
import { ofTenant } from '../tenant-scope';

/**
 * A new tenant (the operator's):
 *
 *   INSERT INTO tenants (id, name, engine_group, executor_secret, rate_per_sec, burst, claim_share, executor_networks, created_at) VALUES (…)
 */
export async function insertTenant(manager: EntityManager, row: TenantEntity): Promise<void> {
  await manager.insert(TenantEntity, row);
}

/**
 * A tenant's settings, as the operator changed them:
 *
 *   UPDATE tenants SET name = ?, engine_group = ?, rate_per_sec = ?, burst = ?, claim_share = ?, executor_networks = ?, backlog_alarm_ms = ? WHERE id = ?
 */
export async function updateTenant(
  manager: EntityManager,
  row: Pick<TenantEntity, 'id' | 'name' | 'engineGroup' | 'ratePerSec' | 'burst' | 'claimShare' | 'executorNetworks' | 'backlogAlarmMs' | 'ssoRequired'>,
): Promise<void> {
  // Named one by one: the row given may be a whole entity, and only these are the operator's to change.
  const { name, engineGroup, ratePerSec, burst, claimShare, executorNetworks, backlogAlarmMs, ssoRequired } = row;
  await manager.update(TenantEntity, { id: row.id }, { name, engineGroup, ratePerSec, burst, claimShare, executorNetworks, backlogAlarmMs, ssoRequired });
}

/**
 * A tenant moved to another engine group takes its tasks and every run not ended yet with it, in
 * the move's transaction (the caller then writes the tenant's row):
 *
 *   UPDATE tasks SET engine_group = ?, version = version + 1 WHERE tenant_id = ?   -- changed tasks: copies a console kept are stale
 *   UPDATE runs [FORCE INDEX (ix_runs_tenant_finished)] SET engine_group = ?, updated_at = ?
 *    WHERE tenant_id = ? AND finished_at IS NULL AND engine_group <> ?
 *
 * Every run not ended, the ones an engine holds (CLAIMED, DISPATCHED, ACCEPTED) too: an engine
 * writes no group when it gives a run back (deferred, released, retried), so a run held at the move
 * and given back later kept the old group, where no engine claims the tenant's runs any more (the
 * claim reads the tenant's group), and waited for good. A held run still finishes where it is: its
 * holder's own writes (lease renewal, dispatch marks, callbacks, hand-backs) find it by id and
 * owner, never by group, and the claim takes only runs nobody holds. What reads runs by group for
 * the whole group — the watchdog's timeouts and late starts, the executor-down reconciliation, the
 * fan-out sweep, the console's live counts — is the new group's from here, as the tenant is.
 *
 * Why here and not in each hand-back (writing the tenant's group as it gives a run back): that
 * read of the tenant's row races the move — read before the move commits, written after it — and
 * the run is stranded again, unless every hand-back locked the tenant's row. This one statement
 * races nothing: it and a hand-back write the same run row, so InnoDB's row lock puts one after
 * the other, and either order ends with the new group (a hand-back writes the state, not the group).
 *
 * The rows are found by `finished_at IS NULL` (the tenant's not-ended runs: every end writes
 * finished_at, a retry clears it) through ix_runs_tenant_finished, not by state: a run keeps that
 * index entry while it moves between states, so a run an engine moves from CLAIMED to RETRY_WAIT
 * while this statement reads cannot leave a range before it is read and enter another after (a
 * range by state could miss it). FORCE INDEX so that holds whatever the optimizer prefers. The
 * entries are in id order, so runs written beside a held run by a transaction that holds it (a
 * finished run's children, a fan-out's shards) come after it: this statement waits for that
 * transaction at the held run and reads them committed — or that transaction waits for the move
 * and reads the group it wrote. New runs of the tenant's tasks (planner, triggers, backfill
 * slices) lock their task, which the first statement has locked.
 */
export async function moveTenantGroup(manager: EntityManager, input: { tenantId: string; engineGroup: string; now: number }): Promise<void> {
  await manager.update(TaskEntity, ofTenant(input.tenantId, {}), { engineGroup: input.engineGroup, version: () => 'version + 1' });
  const byNotEnded = dialectOf(manager) === 'mysql' ? 'FORCE INDEX (ix_runs_tenant_finished)' : '';
  await execute(manager, `UPDATE runs ${byNotEnded} SET engine_group = ?, updated_at = ? WHERE tenant_id = ? AND finished_at IS NULL AND engine_group <> ?`, [
    input.engineGroup,
    input.now,
    input.tenantId,
    input.engineGroup,
  ]);
}
