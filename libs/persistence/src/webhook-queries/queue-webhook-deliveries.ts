import type { EntityManager } from 'typeorm';
import { routesTo, type AlarmType, type Severity } from '@baton/domain';
import { chunks, dialectOf, execute, num } from '../engine-queries/sql';

/**
 * Queues the alarms just published for the tenant's webhook channels whose rule takes them, in
 * the relay's transaction that marks them published (so an alarm is queued exactly when it is
 * published, and once):
 *
 *   SELECT id, alarm_types, min_severity FROM webhook_channels WHERE tenant_id = ?
 *   INSERT INTO webhook_deliveries (…) VALUES (…), (…) ON DUPLICATE KEY UPDATE id = id   -- (channel, alarm, count) once
 *
 * A collapsed repeat published again with its new count is a new delivery. Returns how many.
 */
export async function queueWebhookDeliveries(
  manager: EntityManager,
  input: { tenantId: string; alarms: ReadonlyArray<{ id: number; type: AlarmType; severity: Severity; count: number }>; now: number },
): Promise<number> {
  if (input.alarms.length === 0) return 0;
  const { rows: channels } = await execute<Record<string, unknown>>(manager, 'SELECT id, alarm_types, min_severity FROM webhook_channels WHERE tenant_id = ?', [input.tenantId]);
  if (channels.length === 0) return 0;
  const pairs: Array<[number, { id: number; count: number }]> = [];
  for (const c of channels) {
    const rule = { alarmTypes: c.alarm_types === null ? null : (JSON.parse(String(c.alarm_types)) as AlarmType[]), minSeverity: String(c.min_severity) as Severity };
    for (const a of input.alarms) if (routesTo(rule, a)) pairs.push([num(c.id), a]);
  }
  const onDuplicate = dialectOf(manager) === 'mysql' ? 'ON DUPLICATE KEY UPDATE id = id' : 'ON CONFLICT (channel_id, alarm_id, alarm_count) DO NOTHING';
  for (const part of chunks(pairs)) {
    await execute(
      manager,
      `INSERT INTO webhook_deliveries (tenant_id, channel_id, alarm_id, alarm_count, attempts, next_at, delivered_at, failed_at, last_error, created_at)
       VALUES ${part.map(() => '(?, ?, ?, ?, 0, ?, NULL, NULL, NULL, ?)').join(', ')} ${onDuplicate}`,
      part.flatMap(([channelId, a]) => [input.tenantId, channelId, a.id, a.count, input.now, input.now]),
    );
  }
  return pairs.length;
}
