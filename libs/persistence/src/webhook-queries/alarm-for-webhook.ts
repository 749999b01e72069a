import type { EntityManager } from 'typeorm';
import type { StoredAlarm } from '@baton/domain';
import { storedAlarmOf } from '../engine-queries/alarms/alarm-outbox';
import { execute, num, placeholders } from '../engine-queries/sql';

/**
 * The alarms a batch of deliveries carries, as the topic's message is made from them, by id:
 *
 *   SELECT id, uid, tenant_id, type, severity, task_id, run_id, executor_id, message, data, count, raised_at FROM alarms WHERE id IN (…)
 *
 * An alarm gone (purged by retention before it could be delivered) is absent.
 */
export async function findAlarmsForWebhooks(manager: EntityManager, alarmIds: readonly number[]): Promise<Map<number, StoredAlarm>> {
  const ids = [...new Set(alarmIds)];
  if (ids.length === 0) return new Map();
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT id, uid, tenant_id, type, severity, task_id, run_id, executor_id, message, data, count, raised_at FROM alarms WHERE id IN (${placeholders(ids.length)})`,
    ids,
  );
  return new Map(rows.map((r) => [num(r.id), storedAlarmOf(r)]));
}
