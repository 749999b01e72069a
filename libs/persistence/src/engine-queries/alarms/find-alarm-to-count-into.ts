import type { EntityManager } from 'typeorm';
import type { AlarmType, Severity } from '@baton/domain';
import { execute, num } from '../sql';

export interface CollapsibleAlarm {
  tenantId: string;
  /** Null: an alarm about no task (BACKLOG_LATE): repeats of the tenant's own alarm of that type collapse. */
  taskId: number | null;
  type: AlarmType;
  severity: Severity;
  /** Business alarms are "the same alarm" only with the same message; null for the engine's types. */
  message: string | null;
  /** Start of the silence window: alarms raised at or after it count. */
  since: number;
}

/**
 * The silence window: a repeat of an alarm (same task, type and severity — and message, for
 * BUSINESS) raised within the task's `alarm_silence_ms` of the latest unacknowledged one is not
 * a new alarm; that one's `count` goes up instead (addAlarmCounts). No alarm floods: a task that
 * times out every second makes one alarm a minute with a count, not sixty pop-ups. This finds
 * the alarm to count into, or null (write a new alarm):
 *
 *   SELECT id FROM alarms
 *   WHERE task_id = ? AND type = ? AND severity = ? AND tenant_id = ? AND raised_at >= ? AND acked_at IS NULL
 *     [AND message = ?]
 *   ORDER BY raised_at DESC, id DESC LIMIT 1                       -- ix_alarms_collapse (task_id, type, raised_at)
 *
 * (`task_id IS NULL` for an alarm about no task: the NULL key of the same index, whose (type,
 * raised_at) range holds the window's alarms of that type of every tenant — few.)
 *
 * A plain read, no lock: the count is added after the reporting transaction commits, so the
 * transactions of every failing run of a task do not queue on that alarm's row (they did: 10 ms
 * a retry in a tenant's storm of failing runs). An acknowledged alarm is not counted into: a
 * repeat after the ack is news again. The window is anchored at the first alarm (its
 * raised_at), so a steady stream of repeats makes one alarm per window, not one alarm for ever.
 */
export async function findAlarmToCountInto(manager: EntityManager, alarm: CollapsibleAlarm): Promise<number | null> {
  const params: unknown[] = [...(alarm.taskId === null ? [] : [alarm.taskId]), alarm.type, alarm.severity, alarm.tenantId, alarm.since];
  if (alarm.message !== null) params.push(alarm.message);
  const { rows } = await execute<{ id: number | string }>(
    manager,
    `SELECT id FROM alarms
     WHERE ${alarm.taskId === null ? 'task_id IS NULL' : 'task_id = ?'} AND type = ? AND severity = ? AND tenant_id = ? AND raised_at >= ? AND acked_at IS NULL
       ${alarm.message !== null ? 'AND message = ?' : ''}
     ORDER BY raised_at DESC, id DESC LIMIT 1`,
    params,
  );
  return rows.length ? num(rows[0].id) : null;
}
