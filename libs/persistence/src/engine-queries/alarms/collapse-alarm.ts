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
 * a new alarm; that one's `count` goes up instead. No alarm floods: a task that times out every
 * second makes one alarm a minute with a count, not sixty pop-ups.
 *
 *   SELECT id FROM alarms
 *   WHERE task_id = ? AND type = ? AND severity = ? AND tenant_id = ? AND raised_at >= ? AND acked_at IS NULL
 *     [AND message = ?]
 *   ORDER BY raised_at DESC, id DESC LIMIT 1                       -- ix_alarms_collapse (task_id, type, raised_at)
 *
 * (`task_id IS NULL` for an alarm about no task: the NULL key of the same index, whose (type,
 * raised_at) range holds the window's alarms of that type of every tenant — few.)
 *
 *   UPDATE alarms SET count = count + 1, published_at = NULL WHERE id = ? AND acked_at IS NULL
 *
 * An acknowledged alarm is not added to: a repeat after the ack is news again. The window is
 * anchored at the first alarm (its raised_at), so a steady stream of repeats makes one alarm per
 * window, not one alarm for ever. The counted alarm goes back into the outbox: the relay
 * publishes it again, same id, new count, and the console's pop-up of that alarm shows the count
 * instead of a new pop-up. Returns the id counted into, or null (write a new alarm).
 */
export async function collapseAlarm(manager: EntityManager, alarm: CollapsibleAlarm): Promise<number | null> {
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
  if (!rows.length) return null;
  const id = num(rows[0].id);
  const { affected } = await execute(manager, 'UPDATE alarms SET count = count + 1, published_at = NULL WHERE id = ? AND acked_at IS NULL', [id]);
  return affected > 0 ? id : null;
}
