import type { EntityManager } from 'typeorm';
import type { MisfirePolicy, RunCause } from '@baton/domain';
import { execute, num, numOrNull } from '../sql';

/** A run an engine holds (CLAIMED or DISPATCHED), with what a release needs to decide its fate. */
export interface HeldRunRow {
  id: number;
  tenantId: string;
  taskId: number;
  state: 'CLAIMED' | 'DISPATCHED';
  cause: RunCause;
  attempt: number;
  scheduledAt: number;
  dueAt: number;
  leaseUntil: number | null;
  executorId: number | null;
  /** The task's misfire settings; null when the task was deleted meanwhile. */
  misfirePolicy: MisfirePolicy | null;
  misfireThresholdMs: number | null;
}

export interface FindHeldRunsInput {
  owner: string;
  states?: ReadonlyArray<'CLAIMED' | 'DISPATCHED'>;
  /** Only runs whose lease ended before this instant (the expired-lease sweep). */
  leaseBefore?: number;
  limit: number;
}

/**
 * The runs one engine holds:
 *
 *   SELECT r.id, …, t.misfire_policy, t.misfire_threshold_ms
 *     FROM runs r LEFT JOIN tasks t ON t.id = r.task_id
 *    WHERE r.state IN ('CLAIMED', 'DISPATCHED') AND r.claimed_by = ? [AND r.lease_until < ?]
 *    ORDER BY r.id LIMIT ?
 *
 * ix_runs_lease (state, claimed_by, lease_until) makes it an exact range: this owner's runs
 * only, and with the lease bound only its expired ones. A plain read, no lock: the release
 * that follows is a guarded UPDATE naming the state, owner (and lease bound) it saw, so a run
 * that moved meanwhile (dispatched, renewed, released by a racing survivor) is left alone.
 * The task is joined for its misfire policy; LEFT JOIN because a deleted task must not hide
 * the run from its release.
 */
export async function findHeldRuns(manager: EntityManager, input: FindHeldRunsInput): Promise<HeldRunRow[]> {
  const states = input.states ?? ['CLAIMED', 'DISPATCHED'];
  if (states.length === 0) return [];
  const leased = input.leaseBefore !== undefined;
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT r.id, r.tenant_id, r.task_id, r.state, r.cause, r.attempt, r.scheduled_at, r.due_at, r.lease_until, r.executor_id,
            t.misfire_policy, t.misfire_threshold_ms
       FROM runs r LEFT JOIN tasks t ON t.id = r.task_id
      WHERE r.state IN (${states.map(() => '?').join(', ')}) AND r.claimed_by = ? ${leased ? 'AND r.lease_until < ?' : ''}
      ORDER BY r.id
      LIMIT ?`,
    [...states, input.owner, ...(leased ? [input.leaseBefore] : []), input.limit],
  );
  return rows.map((r) => ({
    id: num(r.id),
    tenantId: String(r.tenant_id),
    taskId: num(r.task_id),
    state: r.state as 'CLAIMED' | 'DISPATCHED',
    cause: r.cause as RunCause,
    attempt: num(r.attempt),
    scheduledAt: num(r.scheduled_at),
    dueAt: num(r.due_at),
    leaseUntil: numOrNull(r.lease_until),
    executorId: numOrNull(r.executor_id),
    misfirePolicy: (r.misfire_policy as MisfirePolicy | null) ?? null,
    misfireThresholdMs: numOrNull(r.misfire_threshold_ms),
  }));
}
