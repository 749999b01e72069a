import type { EntityManager } from 'typeorm';
import { TERMINAL_STATES, type FanOutFailWhen, type RunState, type ShardEnd } from '@baton/domain';
import { dialectOf, execute, num, numOrNull, placeholders } from '../engine-queries/sql';
import { RUN_ATTEMPT_COLUMNS, toRunAttemptRow, type RunAttemptRow } from '../engine-queries/runs/run-attempt-row';

/** Where a fan-out run stands when one of its shards has ended. */
export type FanOutStand =
  /** Another shard is still going: its end will settle the run (or the settler's sweep will). */
  | { kind: 'GOING' }
  /** The run is not running any more (ended, cancelled): nothing to do. */
  | { kind: 'OVER' }
  /** Every shard has ended: end the run now, with this. */
  | { kind: 'SETTLED'; run: RunAttemptRow; failWhen: FanOutFailWhen; shards: ShardEnd[] };

const ENDED = `(${TERMINAL_STATES.map((s) => `'${s}'`).join(', ')})`;

/** `SELECT 1 FROM runs WHERE parent_run_id = ? AND state NOT IN (ended) LIMIT 1` — a point range of ix_runs_parent. */
async function shardGoing(manager: EntityManager, runId: number): Promise<boolean> {
  const { rows } = await execute(manager, `SELECT 1 AS going FROM runs WHERE parent_run_id = ? AND state NOT IN ${ENDED} LIMIT 1`, [runId]);
  return rows.length > 0;
}

/**
 * Called in a READ COMMITTED transaction (followUpTransaction) after one of the run's shards
 * ended, or by the settler for a run whose shards may all have ended:
 *
 *   SELECT 1 FROM runs WHERE parent_run_id = ? AND state NOT IN (ended) LIMIT 1    -- any shard going?
 *   SELECT state FROM runs WHERE id = ? FOR UPDATE                                 -- the fan-out run, locked
 *   SELECT 1 FROM runs WHERE parent_run_id = ? AND state NOT IN (ended) LIMIT 1    -- again, under the lock
 *   SELECT …RunAttemptRow…, t.fan_out_fail_when FROM runs r JOIN tasks t …  +  its shards' ends
 *
 * Why a look before the lock: every shard's end used to lock the fan-out run's row, so a
 * thousand shards' callbacks queued on that one row and the run ended a second after its last
 * shard (bench fan-out: 1,484 ms against 460 ms). Now only a shard that sees no other going takes
 * the lock; whoever gets it re-reads — at READ COMMITTED, a fresh snapshot per statement — and
 * ends the run at most once (the second finds it OVER). Two last shards ending in the same
 * instant may each see the other still going, uncommitted: both answer GOING, and their caller
 * hands the run to the settler, which looks again once they have committed. The lock is taken
 * on the fan-out row alone (not the join), after the shard's own row: every path locks shard
 * before fan-out run, so two of them cannot deadlock.
 */
export async function standOfFanOut(manager: EntityManager, runId: number): Promise<FanOutStand> {
  if (await shardGoing(manager, runId)) return { kind: 'GOING' };
  const forUpdate = dialectOf(manager) === 'mysql' ? 'FOR UPDATE' : '';
  const { rows: own } = await execute<{ state: unknown }>(manager, `SELECT state FROM runs WHERE id = ? ${forUpdate}`, [runId]);
  if (own[0]?.state !== 'ACCEPTED') return { kind: 'OVER' };
  if (await shardGoing(manager, runId)) return { kind: 'GOING' };
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT ${RUN_ATTEMPT_COLUMNS}, t.fan_out_fail_when
       FROM runs r JOIN tasks t ON t.id = r.task_id LEFT JOIN executors e ON e.id = r.executor_id
      WHERE r.id = ?`,
    [runId],
  );
  if (rows.length === 0) return { kind: 'OVER' };
  const { rows: shards } = await execute<Record<string, unknown>>(
    manager,
    `SELECT shard_index, state, executor_id, error, result FROM runs WHERE parent_run_id = ? AND cause = 'SHARD' AND state IN (${placeholders(TERMINAL_STATES.length)})`,
    [runId, ...TERMINAL_STATES],
  );
  return {
    kind: 'SETTLED',
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

/**
 * Fan-out runs of these engine groups whose shards have all ended but which are still running —
 * what the settler sweeps up (two last shards that each saw the other going, an engine that died
 * between a shard's end and the run's):
 *
 *   SELECT r.id FROM runs r WHERE r.engine_group IN (…) AND r.state = 'ACCEPTED' AND r.deadline_at IS NULL
 *      AND NOT EXISTS (SELECT 1 FROM runs s WHERE s.parent_run_id = r.id AND s.state NOT IN (ended)) LIMIT ?
 *
 * A running fan-out run is the only ACCEPTED run without a deadline (startFanOutRun), so this is
 * the (engine_group, state, deadline_at IS NULL) prefix of ix_runs_deadline: it never reads the
 * executing single runs, however many there are; each candidate costs a probe of ix_runs_parent.
 */
export async function findSettleableFanOuts(manager: EntityManager, input: { groups: readonly string[]; limit: number }): Promise<number[]> {
  if (input.groups.length === 0) return [];
  const { rows } = await execute<{ id: unknown }>(manager, findSettleableFanOutsSql(input.groups.length, input.limit), [...input.groups]);
  return rows.map((r) => num(r.id));
}

/** findSettleableFanOuts' SELECT — exported so the plan test EXPLAINs this very text. */
export function findSettleableFanOutsSql(groups: number, limit: number): string {
  return `SELECT r.id FROM runs r
           WHERE r.engine_group IN (${placeholders(groups)}) AND r.state = 'ACCEPTED' AND r.deadline_at IS NULL
             AND NOT EXISTS (SELECT 1 FROM runs s WHERE s.parent_run_id = r.id AND s.state NOT IN ${ENDED})
           LIMIT ${Math.floor(limit)}`;
}
