import type { EntityManager } from 'typeorm';
import type { QueryResult } from 'typeorm/query-runner/QueryResult';
import type { Alarm, AlarmType } from '@baton/domain';
import { parseAlarmSilenceMs, parseAlarmTypes } from '../runs/run-attempt-row';
import { dialectOf, execute } from '../sql';

/** A new alarm row: the alarm (its count starts at 1, its data as JSON text) and its stable id. */
export interface AlarmRow extends Omit<Alarm, 'data' | 'count'> {
  /** The alarm's stable id (alarms.uid): a UUID made by the engine, or the executor SDK's id. */
  uid: string;
  /** JSON text or null (the caller cuts it to size, as it cuts `message` to 1000 characters). */
  dataJson: string | null;
}

/**
 * One alarm into the outbox:
 *
 *   INSERT INTO alarms (uid, tenant_id, type, severity, task_id, run_id, executor_id, message, data, count, raised_at)
 *   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)      -- published_at NULL: in the outbox
 *   -- MySQL: ON DUPLICATE KEY UPDATE id = id      SQLite: ON CONFLICT (uid) DO NOTHING
 *
 * Always called with the manager of the transaction that makes the state change the alarm is
 * about, so the alarm exists if and only if the change does (published_at NULL: the relay
 * publishes it later, once). A uid that exists already (an executor's callback carrying the same
 * business alarm again) writes nothing: the conflict clause, not a read first, so two engines
 * taking the two copies at once cannot both write it. apps/engine/src/alarms/ is the only caller.
 * Returns the new row's id, or null when the uid was there already (nothing written).
 */
export async function insertAlarm(manager: EntityManager, alarm: AlarmRow): Promise<number | null> {
  const mysql = dialectOf(manager) === 'mysql';
  const sql = `INSERT INTO alarms (uid, tenant_id, type, severity, task_id, run_id, executor_id, message, data, count, raised_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)
     ${mysql ? 'ON DUPLICATE KEY UPDATE id = id' : 'ON CONFLICT (uid) DO NOTHING'}`;
  const params = [
    alarm.uid,
    alarm.tenantId,
    alarm.type,
    alarm.severity,
    alarm.taskId,
    alarm.runId,
    alarm.executorId,
    alarm.message,
    alarm.dataJson,
    alarm.raisedAt,
  ];
  const runner = manager.queryRunner ?? manager.connection.createQueryRunner();
  try {
    const result = (await runner.query(sql, params, true)) as QueryResult;
    // SQLite: `raw` is the last rowid, stale when DO NOTHING wrote nothing, so `affected` decides.
    if (!mysql) return result.affected === 1 ? Number(result.raw) : null;
    // MySQL connects with CLIENT_FOUND_ROWS, so a duplicate "updated" to itself counts 1 affected
    // row too; its OK packet's insertId is 0 (measured on MariaDB 10.11), a new row's is its id.
    const id = Number((result.raw as { insertId?: number } | undefined)?.insertId ?? 0);
    return id > 0 ? id : null;
  } finally {
    if (!manager.queryRunner) await runner.release();
  }
}

/**
 * Whether an alarm with this stable id exists (an executor's callback carrying a business alarm
 * again — checked before the silence window, which would otherwise count the repeat):
 *
 *   SELECT id FROM alarms WHERE uid = ?                            -- ux_alarms_uid
 */
export async function alarmUidExists(manager: EntityManager, uid: string): Promise<boolean> {
  const { rows } = await execute(manager, 'SELECT id FROM alarms WHERE uid = ?', [uid]);
  return rows.length > 0;
}

/**
 * The alarm types a task raises (tasks.alarm_types): `SELECT alarm_types FROM tasks WHERE id = ?`.
 * For callers that hold a run but not its task's settings. null: every type (or no such task).
 */
export async function findTaskAlarmTypes(manager: EntityManager, taskId: number): Promise<AlarmType[] | null> {
  return (await findTaskAlarmSettings(manager, taskId)).types;
}

export interface TaskAlarmSettings {
  /** null: every type (no such task, or unreadable). */
  types: AlarmType[] | null;
  /** Repeats within this window collapse into one alarm; 0: never. */
  silenceMs: number;
}

/**
 * A task's alarm settings:
 *
 *   SELECT alarm_types, alarm_silence_ms FROM tasks WHERE id = ?
 *
 * One primary-key read per alarm about a task whose caller does not carry them (a claimed run and
 * a callback's attempt row do: RunAttemptRow, ClaimedRunTask).
 */
export async function findTaskAlarmSettings(manager: EntityManager, taskId: number): Promise<TaskAlarmSettings> {
  const { rows } = await execute<{ alarm_types: string; alarm_silence_ms: number | string | null }>(
    manager,
    'SELECT alarm_types, alarm_silence_ms FROM tasks WHERE id = ?',
    [taskId],
  );
  if (!rows.length) return { types: null, silenceMs: 0 };
  return { types: parseAlarmTypes(rows[0].alarm_types), silenceMs: parseAlarmSilenceMs(rows[0].alarm_silence_ms) };
}
