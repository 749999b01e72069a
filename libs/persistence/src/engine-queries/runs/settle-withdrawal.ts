import type { EntityManager } from 'typeorm';
import type { WithdrawalSettled } from '@baton/domain';
import { execute, num, placeholders } from '../sql';
import { runWrite, stateIn } from '../../runs/run-writes';

/** Guarded by state, changes none (run-writes.spec.ts): a withdrawn fire stays CANCELLED whatever its executor says. */
export const SETTLE_WITHDRAWAL = runWrite('settleWithdrawal', ['CANCELLED'], 'same');

/** Guarded by state, changes none (run-writes.spec.ts). */
export const RECORD_RAN_WITHDRAWN_FIRE = runWrite('recordRanWithdrawnFire', ['CANCELLED'], 'same');

/**
 * The SET part taking what a withdrawn fire's executor reported of its run: its start, and its
 * end when after the withdrawal's (it ran past it) — then on the executor's clock, so the run's
 * timeline says whose. finished_clock is set before finished_at: MariaDB evaluates a single-table
 * SET left to right with the new values, SQLite with the old ones — in this order both compare
 * the old finished_at. Parameters: ranTimesParams.
 */
const RAN_TIMES = `started_at = COALESCE(started_at, ?), finished_clock = CASE WHEN finished_at < ? THEN 'executor' ELSE finished_clock END,
            finished_at = CASE WHEN finished_at < ? THEN ? ELSE finished_at END`;

function ranTimesParams(startedAt: number | null, endedAt: number | null): unknown[] {
  return [startedAt, endedAt, endedAt, endedAt];
}

/** A withdrawn fire its executor has not settled yet (runs.withdrawal UNSETTLED). */
export interface UnsettledWithdrawal {
  runId: number;
  tenantId: string;
  taskId: number;
  attempt: number;
  /** Its instant, given back to its task's schedule if it never started. */
  scheduledAt: number;
  /** When its attempt was to time out; null: none written. */
  deadlineAt: number | null;
  /** The error its withdrawal wrote (WITHDRAWN_BY): the settled error says the same cause. */
  error: string;
  /** Its executor as of now; null when its row is gone. */
  executor: { protocolVersion: number; heartbeatAt: number } | null;
}

/**
 * One unsettled withdrawal, to settle it (primary key):
 *
 *   SELECT … FROM runs r LEFT JOIN executors e ON e.id = r.executor_id
 *    WHERE r.id = ? AND r.tenant_id = ? AND r.withdrawal = 'UNSETTLED'
 */
export async function findUnsettledWithdrawal(manager: EntityManager, input: { runId: number; tenantId: string }): Promise<UnsettledWithdrawal | null> {
  const rows = await readUnsettled(manager, 'r.id = ? AND r.tenant_id = ?', [input.runId, input.tenantId], 1);
  return rows[0] ?? null;
}

/**
 * The unsettled withdrawals of the engine's groups whose instant is before `instantBefore`, oldest
 * first, for the engines' sweep (ix_runs_withdrawal: the few UNSETTLED rows of each group):
 *
 *   SELECT … FROM runs r LEFT JOIN executors e ON e.id = r.executor_id
 *    WHERE r.withdrawal = 'UNSETTLED' AND r.engine_group IN (…) AND r.scheduled_at < ? ORDER BY r.scheduled_at LIMIT ?
 */
export async function findUnsettledWithdrawals(manager: EntityManager, input: { groups: readonly string[]; instantBefore: number; limit: number }): Promise<UnsettledWithdrawal[]> {
  if (input.groups.length === 0) return [];
  return readUnsettled(manager, `r.engine_group IN (${placeholders(input.groups.length)}) AND r.scheduled_at < ?`, [...input.groups, input.instantBefore], input.limit);
}

async function readUnsettled(manager: EntityManager, where: string, params: unknown[], limit: number): Promise<UnsettledWithdrawal[]> {
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT r.id, r.tenant_id, r.task_id, r.attempt, r.scheduled_at, r.deadline_at, r.error, e.protocol_version, e.heartbeat_at
       FROM runs r LEFT JOIN executors e ON e.id = r.executor_id
      WHERE r.withdrawal = 'UNSETTLED' AND ${where} ORDER BY r.scheduled_at LIMIT ?`,
    [...params, limit],
  );
  return rows.map((r) => ({
    runId: num(r.id),
    tenantId: String(r.tenant_id),
    taskId: num(r.task_id),
    attempt: num(r.attempt),
    scheduledAt: num(r.scheduled_at),
    deadlineAt: r.deadline_at === null ? null : num(r.deadline_at),
    error: String(r.error ?? ''),
    executor: r.heartbeat_at === null || r.heartbeat_at === undefined ? null : { protocolVersion: num(r.protocol_version), heartbeatAt: num(r.heartbeat_at) },
  }));
}

/**
 * Settles a withdrawal once — whichever of the abort's answer, a callback (from any engine) and
 * the sweep comes first; the others move nothing:
 *
 *   UPDATE runs SET withdrawal = ?, error = ?, fire_key = CASE WHEN ? = 'NOT_STARTED' THEN 'w:<id>' ELSE fire_key END,
 *          started_at = COALESCE(started_at, ?), finished_clock = CASE WHEN finished_at < ? THEN 'executor' ELSE finished_clock END,
 *          finished_at = CASE WHEN finished_at < ? THEN ? ELSE finished_at END, updated_at = ?
 *    WHERE id = ? AND tenant_id = ? AND attempt = ? AND withdrawal = 'UNSETTLED' AND state IN ('CANCELLED')
 *
 * NOT_STARTED frees the fire key for the instant's new run (the caller gives the instant back in
 * the same transaction). A fire that started keeps its key: its instant ran, and no run may take
 * it again. `startedAt`/`endedAt`: what its executor reported (RAN_TIMES: the run's start, and an
 * end after the withdrawal's, on the executor's clock).
 */
export async function settleWithdrawal(
  manager: EntityManager,
  input: { runId: number; tenantId: string; attempt: number; settled: WithdrawalSettled; error: string; startedAt?: number | null; endedAt?: number | null; now: number },
): Promise<boolean> {
  const startedAt = input.startedAt ?? null;
  const endedAt = input.endedAt ?? null;
  const { affected } = await execute(
    manager,
    `UPDATE runs SET withdrawal = ?, error = ?, fire_key = CASE WHEN ? = 'NOT_STARTED' THEN ? ELSE fire_key END,
            ${RAN_TIMES}, updated_at = ?
      WHERE id = ? AND tenant_id = ? AND attempt = ? AND withdrawal = 'UNSETTLED' AND ${stateIn(SETTLE_WITHDRAWAL)}`,
    [input.settled, input.error, input.settled, `w:${input.runId}`, ...ranTimesParams(startedAt, endedAt), input.now, input.runId, input.tenantId, input.attempt],
  );
  return affected > 0;
}

/**
 * The start and end its executor reports for a withdrawn fire already settled as run (STARTED, or
 * UNKNOWN) — an abort's RUNNING answer settles it with neither, and its outcome comes after:
 *
 *   UPDATE runs SET <RAN_TIMES>, updated_at = ?
 *    WHERE id = ? AND tenant_id = ? AND attempt = ? AND withdrawal IN ('STARTED', 'UNKNOWN') AND state IN ('CANCELLED')
 *
 * Its withdrawal's end (before the instant) would otherwise stay its end, and its timeline tell a
 * run that ended before its instant and never started. Nothing else of the run moves.
 */
export async function recordRanWithdrawnFire(
  manager: EntityManager,
  input: { runId: number; tenantId: string; attempt: number; startedAt: number | null; endedAt: number | null; now: number },
): Promise<boolean> {
  const { affected } = await execute(
    manager,
    `UPDATE runs SET ${RAN_TIMES}, updated_at = ?
      WHERE id = ? AND tenant_id = ? AND attempt = ? AND withdrawal IN ('STARTED', 'UNKNOWN') AND ${stateIn(RECORD_RAN_WITHDRAWN_FIRE)}`,
    [...ranTimesParams(input.startedAt, input.endedAt), input.now, input.runId, input.tenantId, input.attempt],
  );
  return affected > 0;
}
