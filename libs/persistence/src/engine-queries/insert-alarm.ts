import type { EntityManager } from 'typeorm';
import type { AlarmType, Severity } from '@baton/domain';
import { parseAlarmTypes } from './run-attempt-row';
import { execute } from './sql';

export interface AlarmRow {
  tenantId: string;
  type: AlarmType;
  severity: Severity;
  taskId: number | null;
  runId: number | null;
  executorId: number | null;
  /** At most 1000 characters (the caller truncates). */
  message: string;
  /** JSON text or null. */
  dataJson: string | null;
  raisedAt: number;
}

/**
 * One alarm into the outbox:
 *
 *   INSERT INTO alarms (tenant_id, type, severity, task_id, run_id, executor_id, message, data, count, raised_at, published_at)
 *   VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, NULL)
 *
 * Always called with the manager of the transaction that makes the state change the alarm is
 * about, so the alarm exists if and only if the change does (published_at NULL: the relay
 * publishes it later, once). apps/engine/src/alarms/ is the only caller.
 */
export async function insertAlarm(manager: EntityManager, alarm: AlarmRow): Promise<void> {
  await execute(
    manager,
    `INSERT INTO alarms (tenant_id, type, severity, task_id, run_id, executor_id, message, data, count, raised_at, published_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, NULL)`,
    [alarm.tenantId, alarm.type, alarm.severity, alarm.taskId, alarm.runId, alarm.executorId, alarm.message, alarm.dataJson, alarm.raisedAt],
  );
}

/**
 * The alarm types a task raises (tasks.alarm_types): `SELECT alarm_types FROM tasks WHERE id = ?`.
 * For callers that hold a run but not its task's settings. null: every type (or no such task).
 */
export async function findTaskAlarmTypes(manager: EntityManager, taskId: number): Promise<AlarmType[] | null> {
  const { rows } = await execute<{ alarm_types: string }>(manager, 'SELECT alarm_types FROM tasks WHERE id = ?', [taskId]);
  return rows.length ? parseAlarmTypes(rows[0].alarm_types) : null;
}
