import type { EntityManager } from 'typeorm';
import { TERMINAL_STATES, type FanOutFailWhen, type RunState, type ShardEnd } from '@baton/domain';
import { dialectOf, execute, num, numOrNull, placeholders } from '../engine-queries/sql';
import { RUN_ATTEMPT_COLUMNS, toRunAttemptRow, type RunAttemptRow } from '../engine-queries/run-attempt-row';

/** A fan-out run whose shards have all ended, ready to be ended itself. */
export interface SettledFanOut {
  run: RunAttemptRow;
  failWhen: FanOutFailWhen;
  shards: ShardEnd[];
}

const ENDED = `(${TERMINAL_STATES.map((s) => `'${s}'`).join(', ')})`;

/**
 * Called in the transaction that ended one of its shards (READ COMMITTED, followUpTransaction):
 * is the fan-out run `runId` still running, and have all its shards ended? Three statements:
 *
 *   SELECT state FROM runs WHERE id = ? FOR UPDATE                         -- the fan-out run, locked
 *   SELECT 1 FROM runs WHERE parent_run_id = ? AND state NOT IN (ended) LIMIT 1   -- ix_runs_parent
 *   SELECT …RunAttemptRow…, t.fan_out_fail_when FROM runs r JOIN tasks t …  +  its shards' ends
 *
 * Why the lock, and why in that order: two shards ending at once on two engines each write their
 * own end, then wait here for the fan-out run's row. Whoever gets it second reads — at READ
 * COMMITTED, a fresh snapshot per statement — the first one's committed end, so the last shard
 * to end always sees none left and ends the run; a shard that sees one still going leaves it to
 * that one. The lock is taken on the fan-out row alone (not the join), after the shard's own
 * row: every path locks shard before parent, so two of them cannot deadlock.
 * Returns null while the run is not ACCEPTED any more (ended, cancelled) or a shard still runs.
 */
export async function readSettledFanOut(manager: EntityManager, runId: number): Promise<SettledFanOut | null> {
  const forUpdate = dialectOf(manager) === 'mysql' ? 'FOR UPDATE' : '';
  const { rows: own } = await execute<{ state: unknown }>(manager, `SELECT state FROM runs WHERE id = ? ${forUpdate}`, [runId]);
  if (own[0]?.state !== 'ACCEPTED') return null;
  const { rows: going } = await execute(manager, `SELECT 1 AS going FROM runs WHERE parent_run_id = ? AND state NOT IN ${ENDED} LIMIT 1`, [runId]);
  if (going.length > 0) return null;
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT ${RUN_ATTEMPT_COLUMNS}, t.fan_out_fail_when
       FROM runs r JOIN tasks t ON t.id = r.task_id LEFT JOIN executors e ON e.id = r.executor_id
      WHERE r.id = ?`,
    [runId],
  );
  if (rows.length === 0) return null;
  const { rows: shards } = await execute<Record<string, unknown>>(
    manager,
    `SELECT shard_index, state, executor_id, error, result FROM runs WHERE parent_run_id = ? AND cause = 'SHARD' AND state IN (${placeholders(TERMINAL_STATES.length)})`,
    [runId, ...TERMINAL_STATES],
  );
  return {
    run: toRunAttemptRow(rows[0]),
    failWhen: rows[0].fan_out_fail_when as FanOutFailWhen,
    shards: shards.map((s) => ({
      index: num(s.shard_index),
      state: s.state as RunState,
      executorId: numOrNull(s.executor_id),
      error: (s.error as string | null) ?? null,
      resultJson: s.result === null || s.result === undefined ? null : String(s.result),
    })),
  };
}
