import type { EntityManager } from 'typeorm';
import type { RunState } from '@baton/domain';
import { RunEntity } from '../entities';

/** Columns a transition may set along with the state (never the id, tenant or task). */
export type RunTransitionChanges = Partial<Omit<RunEntity, 'id' | 'tenantId' | 'taskId' | 'state' | 'updatedAt'>>;

export interface RunTransition {
  runId: number;
  /** The state(s) the run must be in now for the move to happen. */
  from: RunState | readonly RunState[];
  to: RunState;
  /** Written to `updated_at`. */
  now: number;
  /** Other columns to set in the same statement (claimed_by, lease_until, finished_at, …). */
  set?: RunTransitionChanges;
}

/**
 * Moves a run from an expected state to another, as one conditional update:
 * `UPDATE runs SET state = :to, … WHERE id = :id AND state IN (:from)`.
 *
 * Why: several engines, retried callbacks and the watchdog can all try to move the same run.
 * Naming the expected old state in the WHERE clause makes the database the arbiter: exactly one
 * contender changes the row, every other one affects 0 rows and learns it lost, and a late or
 * duplicate message can never move a run backwards (e.g. a retried "accepted" after SUCCEEDED).
 * No read-then-write, no lock held across a round trip.
 *
 * Returns true when the run moved, false when it was not (or no longer) in `from`.
 * Pass a transaction's EntityManager to combine it with other writes (e.g. an outbox alarm).
 */
export async function transitionRun(manager: EntityManager, transition: RunTransition): Promise<boolean> {
  const from = typeof transition.from === 'string' ? [transition.from] : [...transition.from];
  if (from.length === 0) return false;
  const result = await manager
    .createQueryBuilder()
    .update(RunEntity)
    .set({ ...transition.set, state: transition.to, updatedAt: transition.now })
    .where('id = :id', { id: transition.runId })
    .andWhere('state IN (:...from)', { from })
    .execute();
  // Both drivers count matched rows (mysql2 connects with CLIENT_FOUND_ROWS; SQLite counts every
  // row the UPDATE hit), so a move to the same state (from includes to) also reports true.
  return (result.affected ?? 0) > 0;
}
