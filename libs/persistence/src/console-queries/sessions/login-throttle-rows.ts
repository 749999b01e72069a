import type { EntityManager } from 'typeorm';
import { dialectOf, execute, num, placeholders } from '../../engine-queries/sql';

/** One throttled key's state (LoginThrottleEntity without its key). */
export interface LoginThrottleState {
  failures: number;
  lastFailureAt: number;
  waitUntil: number;
}

function toStates(rows: Array<Record<string, unknown>>): Map<string, LoginThrottleState> {
  return new Map(rows.map((r) => [String(r.throttle_key), { failures: num(r.failures), lastFailureAt: num(r.last_failure_at), waitUntil: num(r.wait_until) }]));
}

const COLUMNS = 'throttle_key, failures, last_failure_at, wait_until';

/** The stored state of `keys` (a key never seen, or swept, is absent). */
export async function readLoginThrottleRows(manager: EntityManager, keys: readonly string[]): Promise<Map<string, LoginThrottleState>> {
  const { rows } = await execute(manager, `SELECT ${COLUMNS} FROM login_throttle WHERE throttle_key IN (${placeholders(keys.length)})`, [...keys]);
  return toStates(rows);
}

/**
 * The state of `keys`, each row created if missing (0 failures) and locked until the transaction
 * of `manager` ends: two consoles counting a failure of the same key at once count two. Keys are
 * created and locked in sorted order, so two such transactions never deadlock each other.
 */
export async function lockLoginThrottleRows(manager: EntityManager, keys: readonly string[], now: number): Promise<Map<string, LoginThrottleState>> {
  const sorted = [...new Set(keys)].sort();
  const mysql = dialectOf(manager) === 'mysql';
  const insert = mysql ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
  await execute(manager, `${insert} INTO login_throttle (${COLUMNS}) VALUES ${sorted.map(() => '(?, 0, ?, 0)').join(', ')}`, sorted.flatMap((k) => [k, now]));
  const { rows } = await execute(
    manager,
    `SELECT ${COLUMNS} FROM login_throttle WHERE throttle_key IN (${placeholders(sorted.length)}) ORDER BY throttle_key ${mysql ? 'FOR UPDATE' : ''}`,
    sorted,
  );
  return toStates(rows);
}

export async function saveLoginThrottleRow(manager: EntityManager, key: string, state: LoginThrottleState): Promise<void> {
  await execute(manager, 'UPDATE login_throttle SET failures = ?, last_failure_at = ?, wait_until = ? WHERE throttle_key = ?', [
    state.failures,
    state.lastFailureAt,
    state.waitUntil,
    key,
  ]);
}

export async function deleteLoginThrottleRows(manager: EntityManager, keys: readonly string[]): Promise<void> {
  await execute(manager, `DELETE FROM login_throttle WHERE throttle_key IN (${placeholders(keys.length)})`, [...keys]);
}

/** Deletes the keys with no failure and no wait since `quietBefore` (an index range on last_failure_at). */
export async function deleteQuietLoginThrottleRows(manager: EntityManager, quietBefore: number): Promise<number> {
  const { affected } = await execute(manager, 'DELETE FROM login_throttle WHERE last_failure_at < ? AND wait_until < ?', [quietBefore, quietBefore]);
  return affected;
}
