import type { EntityManager } from 'typeorm';
import type { AlarmType, Severity } from '@baton/domain';
import type { OutboxAlarm } from '../engine-queries/alarm-outbox';
import { execute, num, numOrNull } from '../engine-queries/sql';

/**
 * The alarm a delivery carries, as the topic's message is made from it:
 *
 *   SELECT id, uid, tenant_id, type, severity, task_id, run_id, executor_id, message, data, count, raised_at FROM alarms WHERE id = ?
 *
 * Null when the alarm is gone (purged by retention before it could be delivered).
 */
export async function findAlarmForWebhook(manager: EntityManager, alarmId: number): Promise<OutboxAlarm | null> {
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    'SELECT id, uid, tenant_id, type, severity, task_id, run_id, executor_id, message, data, count, raised_at FROM alarms WHERE id = ?',
    [alarmId],
  );
  const r = rows[0];
  if (!r) return null;
  return {
    id: num(r.id),
    uid: r.uid === null ? null : String(r.uid),
    tenantId: String(r.tenant_id),
    type: r.type as AlarmType,
    severity: r.severity as Severity,
    taskId: numOrNull(r.task_id),
    runId: numOrNull(r.run_id),
    executorId: numOrNull(r.executor_id),
    message: String(r.message),
    dataJson: r.data === null ? null : String(r.data),
    count: num(r.count),
    raisedAt: num(r.raised_at),
  };
}
