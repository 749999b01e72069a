import type { EntityManager } from 'typeorm';
import type { AlarmType, JsonValue, Severity, StoredAlarm } from '@baton/domain';
import { caseById, dialectOf, execute, num, numOrNull, placeholders, skipLocked } from '../sql';
import { alarmsBehind } from './add-alarm-counts';

/**
 * The alarm outbox relay's queries (apps/engine/src/alarms/outbox-relay.ts). Alarm rows are
 * written with published_at NULL in the transaction of the change they report; the relay
 * publishes them per tenant, oldest first, and marks them. One engine at a time relays a given
 * tenant — the claim is a SKIP LOCKED lock on the tenant's row — so a tenant's alarms go out in
 * order even with many engines, and different tenants go out in parallel.
 */

/**
 * Tenants with unpublished alarms, in the order of their oldest one:
 *
 *   SELECT id, tenant_id FROM alarms WHERE published_at IS NULL ORDER BY id LIMIT ?     -- ix_alarms_outbox
 *
 * A bounded walk of the outbox index (the backlog is small unless the broker is away), deduplicated here.
 */
export async function findOutboxTenants(manager: EntityManager, limit: number): Promise<string[]> {
  const { rows } = await execute<{ tenant_id: string }>(
    manager,
    `SELECT id, tenant_id FROM alarms WHERE published_at IS NULL ORDER BY id LIMIT ${Math.max(1, Math.floor(limit))}`,
  );
  return [...new Set(rows.map((r) => r.tenant_id))];
}

/**
 * The claim on a tenant's outbox, for the rest of the transaction:
 *
 *   SELECT id FROM tenants WHERE id = ? FOR UPDATE SKIP LOCKED
 *
 * MySQL: another engine relaying this tenant holds the row, and we get nothing — skip the tenant
 * (its relay publishes the alarms, in order). The lock is on the tenant row, not on the alarm
 * rows: the engine's writers never lock tenant rows, so raising alarms is never held up, and the
 * console's short tenant locks (dependency cycle check) only delay a relay turn. SQLite: one
 * engine, transactions serialised — nothing to lock. A tenant row that does not exist (deleted)
 * claims nothing and is relayed anyway (its alarms must not clog the outbox).
 */
export async function claimTenantOutbox(manager: EntityManager, tenantId: string): Promise<boolean> {
  if (dialectOf(manager) === 'sqlite') return true;
  const { rows } = await execute(manager, `SELECT id FROM tenants WHERE id = ? ${skipLocked('mysql')}`, [tenantId]);
  if (rows.length) return true;
  const exists = await execute(manager, 'SELECT id FROM tenants WHERE id = ?', [tenantId]);
  return exists.rows.length === 0;
}

/**
 * A claimed tenant's unpublished alarms, oldest first:
 *
 *   SELECT … FROM alarms WHERE tenant_id = ? AND published_at IS NULL ORDER BY id LIMIT ?   -- ix_alarms_tenant_outbox
 *
 * A plain read (no row locks): the tenant claim already makes this engine the only relay of these
 * rows, and engines adding to a row's count (silence window) must not wait for a publish.
 * Under READ COMMITTED it sees what the previous holder of the claim marked.
 */
export async function findTenantOutbox(manager: EntityManager, tenantId: string, limit: number): Promise<StoredAlarm[]> {
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT id, uid, tenant_id, type, severity, task_id, run_id, executor_id, message, data, count, raised_at
     FROM alarms WHERE tenant_id = ? AND published_at IS NULL ORDER BY id LIMIT ${Math.max(1, Math.floor(limit))}`,
    [tenantId],
  );
  return rows.map(storedAlarmOf);
}

/** The columns `id, uid, tenant_id, type, severity, task_id, run_id, executor_id, message, data, count, raised_at` of an alarm, as a StoredAlarm. */
export function storedAlarmOf(r: Record<string, unknown>): StoredAlarm {
  return {
    id: num(r.id),
    uid: (r.uid as string | null) ?? null,
    tenantId: r.tenant_id as string,
    type: r.type as AlarmType,
    severity: r.severity as Severity,
    taskId: numOrNull(r.task_id),
    runId: numOrNull(r.run_id),
    executorId: numOrNull(r.executor_id),
    message: r.message as string,
    data: parseJson((r.data as string | null) ?? null),
    count: num(r.count),
    raisedAt: num(r.raised_at),
  };
}

/** The `data` column's JSON text, parsed; text that is not JSON is kept (cut) under `unparsable`. */
function parseJson(text: string | null): JsonValue | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return { unparsable: text.slice(0, 1000) };
  }
}

/**
 * Marks published what the broker has confirmed, with the count each message carried:
 *
 *   UPDATE alarms SET published_at = ?, published_count = <count by id> WHERE id IN (…) AND published_at IS NULL
 *
 * Returns those whose count went up since they were read (alarmsBehind: an engine counted repeats
 * into them meanwhile — the relay's read takes no lock, and that engine found them still in the
 * outbox): the caller puts them back once their second is over (AlarmCounts), or the topic would
 * not have their count until their next repeat, maybe never.
 */
export async function markAlarmsPublished(manager: EntityManager, published: ReadonlyArray<Pick<StoredAlarm, 'id' | 'count'>>, now: number): Promise<number[]> {
  if (published.length === 0) return [];
  const counts = caseById(published, (a) => a.id, (a) => a.count);
  const ids = published.map((a) => a.id);
  await execute(manager, `UPDATE alarms SET published_at = ?, published_count = ${counts.sql} WHERE id IN (${placeholders(ids.length)}) AND published_at IS NULL`, [
    now,
    ...counts.params,
    ...ids,
  ]);
  return alarmsBehind(manager, ids);
}
