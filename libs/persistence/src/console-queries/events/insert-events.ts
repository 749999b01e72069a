import type { EntityManager } from 'typeorm';
import { EventEntity } from '../../entities';
import { dialectOf, execute, placeholders } from '../../engine-queries/sql';

/** One event to store, with the runs it started. */
export interface NewEvent {
  name: string;
  /** The payload's JSON text. */
  payload: string;
  idempotencyKey: string | null;
  runIds: readonly number[];
}

/**
 * A tenant's events, in the transaction of the runs they started:
 *
 *   INSERT INTO events (…) VALUES (…)                              -- each unkeyed event: its id from the driver
 *   SELECT idempotency_key FROM events WHERE tenant_id = ? AND idempotency_key IN (…)  -- keyed: stored before?
 *   MySQL:  INSERT INTO events (…) VALUES (…), (…) ON DUPLICATE KEY UPDATE id = id
 *   SQLite: INSERT INTO events (…) VALUES (…), (…) ON CONFLICT (tenant_id, idempotency_key) DO NOTHING
 *   SELECT * FROM events WHERE tenant_id = ? AND idempotency_key IN (…) [LOCK IN SHARE MODE] -- uq_events_tenant_key
 *
 * An idempotency key already stored (another console committed the same event first) is not an
 * error: the row stays as it is and the answer is that event (`created` false; true, with the same
 * event, when the other committed after this transaction's first read). The keyed runs of
 * a repeat (fire key `e:<key>`) found their first runs the same way, so nothing is doubled.
 * An unkeyed event has nothing unique to read it back by but its id, so it is inserted alone
 * (MySQL 8's interleaved auto-increment does not promise consecutive ids to a multi-row INSERT).
 */
export async function insertEvents(manager: EntityManager, tenantId: string, events: readonly NewEvent[], now: number): Promise<Array<{ row: EventEntity; created: boolean }>> {
  if (events.length === 0) return [];
  const answers: Array<{ row: EventEntity; created: boolean } | null> = events.map(() => null);
  const keyed = events.map((e, i) => ({ e, i })).filter(({ e }) => e.idempotencyKey !== null);
  const existing = new Set<string>();
  if (keyed.length > 0) {
    const { rows } = await execute<{ idempotency_key: unknown }>(
      manager,
      `SELECT idempotency_key FROM events WHERE tenant_id = ? AND idempotency_key IN (${placeholders(keyed.length)})`,
      [tenantId, ...keyed.map(({ e }) => e.idempotencyKey)],
    );
    for (const r of rows) existing.add(String(r.idempotency_key));
  }
  for (const [i, e] of events.entries()) {
    if (e.idempotencyKey !== null) continue;
    const { identifiers } = await manager.insert(EventEntity, { tenantId, name: e.name, payload: JSON.parse(e.payload), idempotencyKey: null, runIds: [...e.runIds], receivedAt: now });
    const id = Number(identifiers[0].id);
    answers[i] = { row: { id, tenantId, name: e.name, payload: JSON.parse(e.payload), idempotencyKey: null, runIds: [...e.runIds], receivedAt: now }, created: true };
  }
  if (keyed.length > 0) {
    const onDuplicate = dialectOf(manager) === 'mysql' ? 'ON DUPLICATE KEY UPDATE id = id' : 'ON CONFLICT (tenant_id, idempotency_key) DO NOTHING';
    await execute(
      manager,
      `INSERT INTO events (tenant_id, name, payload, idempotency_key, run_ids, received_at) VALUES ${keyed.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')} ${onDuplicate}`,
      keyed.flatMap(({ e }) => [tenantId, e.name, e.payload, e.idempotencyKey, JSON.stringify(e.runIds), now]),
    );
    const readBack = manager.createQueryBuilder(EventEntity, 'e').where('e.tenantId = :tenantId AND e.idempotencyKey IN (:...keys)', { tenantId, keys: keyed.map(({ e }) => e.idempotencyKey) });
    // Locking on MySQL, as insertSubmittedRuns reads back: an event another console committed while
    // this transaction waited on its key is newer than this transaction's snapshot.
    const rows = await (dialectOf(manager) === 'mysql' ? readBack.setLock('pessimistic_read') : readBack).getMany();
    const byKey = new Map(rows.map((row) => [row.idempotencyKey, row]));
    for (const { e, i } of keyed) {
      const row = byKey.get(e.idempotencyKey);
      if (!row) throw new Error(`event under key ${e.idempotencyKey} not found after its insert`);
      // A key given twice in one batch is stored once: the first is the one that made it.
      answers[i] = { row, created: !existing.has(e.idempotencyKey!) };
      existing.add(e.idempotencyKey!);
    }
  }
  return answers as Array<{ row: EventEntity; created: boolean }>;
}
