import type { EntityManager } from 'typeorm';
import { EventEntity } from '../../entities';
import { chunks, dialectOf, execute, num, placeholders } from '../../engine-queries/sql';
import { collated } from '../collated';
import { hasReturning } from '../runs/has-returning';
import { sendWriteAhead } from '../../engine-queries/riders';
import { consecutiveIdStep, idsOfInsert } from '../runs/insert-with-ids';

const INTO = 'events (tenant_id, name, payload, idempotency_key, run_ids, received_at)';

function placeholderRows(count: number): string {
  return Array.from({ length: count }, () => '(?, ?, ?, ?, ?, ?)').join(', ');
}

/** One event to store, with the runs it started. */
export interface NewEvent {
  name: string;
  /** The payload's JSON text. */
  payload: string;
  idempotencyKey: string | null;
  runIds: readonly number[];
}

/**
 * A tenant's events, in the transaction of the runs they start (statements of at most
 * MAX_ROWS_PER_STATEMENT rows: more take one statement per such part):
 *
 *   INSERT INTO events (…) VALUES (…), (…)                         -- the unkeyed events, sent ahead (below)
 *   MariaDB: INSERT IGNORE INTO events (…) VALUES (…), (…) RETURNING id, idempotency_key   -- keyed, in key order
 *   SQLite:  INSERT INTO events (…) VALUES (…), (…) ON CONFLICT (tenant_id, idempotency_key) DO NOTHING RETURNING id, idempotency_key
 *   MySQL:   SELECT idempotency_key FROM events WHERE …; INSERT … ON DUPLICATE KEY UPDATE id = id   -- see insertKeyed
 *   SELECT * FROM events WHERE tenant_id = ? AND idempotency_key IN (…) [LOCK IN SHARE MODE] -- uq_events_tenant_key:
 *                                      only the keys stored before (on MySQL, every key)
 *
 * An idempotency key already stored (another console committed the same event first) is not an
 * error: the row stays as it is and the answer is that event (`created` false), as the database
 * holds it. On MariaDB a transaction whose key another one has just written waits on that key's
 * row until the other commits (or rolls back), and then finds it stored: the console writes a
 * request's keyed events before its runs (apps/console/src/events/event-rows.ts), so a repeat
 * starts none of them.
 * The unkeyed events go in one statement, their ids the consecutive ones MariaDB and SQLite give
 * its rows (idsOfInsert); an unkeyed event has nothing unique to read it back by but its id, so
 * where the ids are not consecutive (MySQL 8's interleaved auto-increment) each is inserted alone.
 * That statement is sent ahead (sendWriteAhead): in a transaction it rides with the next one, so a
 * caller that issues its next statement before awaiting the answer (the console writes a batch's
 * unkeyed events before its runs, in the packet of the runs' INSERT) pays no round trip for it.
 * A keyed event this call stored is answered from the id its INSERT returned and the values
 * written, as an unkeyed one. One statement an event was 1 of the 1.3 a batched event cost
 * MariaDB (bench on-demand --series=events-batched --sql-timing).
 */
export async function insertEvents(manager: EntityManager, tenantId: string, events: readonly NewEvent[], now: number): Promise<Array<{ row: EventEntity; created: boolean }>> {
  if (events.length === 0) return [];
  const answers: Array<{ row: EventEntity; created: boolean } | null> = events.map(() => null);
  const written = (id: number, e: NewEvent): EventEntity => ({ id, tenantId, name: e.name, payload: JSON.parse(e.payload), idempotencyKey: e.idempotencyKey, runIds: [...e.runIds], receivedAt: now });
  // One order for every transaction's locks on the keys (two consoles storing the same keys deadlocked otherwise).
  const keyed = events
    .map((e, i) => ({ e, i, key: e.idempotencyKey! }))
    .filter(({ e }) => e.idempotencyKey !== null)
    .sort((a, b) => collated(a.key, b.key));
  const unkeyed = [...events.entries()].filter(([, e]) => e.idempotencyKey === null);
  // Every part queued before any is awaited: they all ride with the transaction's next statement.
  const parts = chunks(unkeyed);
  const partIds = await Promise.all(parts.map((part) => insertUnkeyed(manager, tenantId, part.map(([, e]) => e), now)));
  parts.forEach((part, p) => {
    for (const [n, [i, e]] of part.entries()) answers[i] = { row: written(partIds[p][n], e), created: true };
  });
  if (keyed.length > 0) {
    const made = new Map<string, number | null>();
    for (const part of chunks(keyed)) {
      const ids = await insertKeyed(manager, part.map(({ e }) => [tenantId, e.name, e.payload, e.idempotencyKey, JSON.stringify(e.runIds), now]), tenantId, part.map(({ key }) => key));
      for (const [key, id] of ids) made.set(key, id);
    }
    const byKey = new Map<string, EventEntity>();
    // A key given twice in one batch is stored once: the first is the one that made it (keyed's sort keeps their order).
    for (const { e, key } of keyed) {
      const id = made.get(key);
      if (id !== undefined && id !== null && !byKey.has(key)) byKey.set(key, written(id, e));
    }
    const stored = [...new Set(keyed.map(({ key }) => key).filter((key) => !byKey.has(key)))];
    for (const part of chunks(stored)) {
      const readBack = manager.createQueryBuilder(EventEntity, 'e').where('e.tenantId = :tenantId AND e.idempotencyKey IN (:...keys)', { tenantId, keys: part });
      // Locking on MySQL, as insertSubmittedRuns reads back: an event another console committed while
      // this transaction waited on its key is newer than this transaction's snapshot.
      for (const row of await (dialectOf(manager) === 'mysql' ? readBack.setLock('pessimistic_read') : readBack).getMany()) byKey.set(row.idempotencyKey!, row);
    }
    for (const { e, i, key } of keyed) {
      const row = byKey.get(key);
      if (!row) throw new Error(`event under key ${e.idempotencyKey} not found after its insert`);
      answers[i] = { row, created: made.delete(key) };
    }
  }
  return answers as Array<{ row: EventEntity; created: boolean }>;
}

/** The unkeyed events' ids, in order: one statement where the database gives its rows consecutive ids, else one each. */
async function insertUnkeyed(manager: EntityManager, tenantId: string, events: readonly NewEvent[], now: number): Promise<number[]> {
  const row = (e: NewEvent) => [tenantId, e.name, e.payload, null, JSON.stringify(e.runIds), now];
  // Known before the INSERT: where the ids are not consecutive, a multi-row INSERT's rows could not be told apart after it.
  const step = await consecutiveIdStep(manager);
  if (step !== null) {
    const raw = await sendWriteAhead(manager, `INSERT INTO ${INTO} VALUES ${placeholderRows(events.length)}`, events.flatMap(row));
    const ids = idsOfInsert(manager, raw, events.length, step);
    // Written, ids unknown: the transaction fails (and rolls the rows back) rather than answer without them.
    if (!ids) throw new Error(`the ids of ${events.length} event(s) just inserted are unknown`);
    return ids;
  }
  const one: number[] = [];
  for (const e of events) {
    const { identifiers } = await manager.insert(EventEntity, { tenantId, name: e.name, payload: JSON.parse(e.payload), idempotencyKey: null, runIds: [...e.runIds], receivedAt: now });
    one.push(Number(identifiers[0].id));
  }
  return one;
}

/**
 * The keys of the events this INSERT stored (not stored before, nor by another transaction
 * meanwhile), with the id each was given: exact where the INSERT names its rows (RETURNING: MariaDB
 * ≥ 10.5, SQLite), as insertSubmittedRuns' keyed runs. On MySQL the keys present before are read
 * first, and their ids are not known (null: read back); a key two consoles store at the same moment
 * may be answered as made by both, and both transactions then write their runs.
 */
async function insertKeyed(manager: EntityManager, values: unknown[][], tenantId: string, keys: readonly string[]): Promise<Map<string, number | null>> {
  const dialect = dialectOf(manager);
  const rows = placeholderRows(values.length);
  if (dialect === 'sqlite' || (await hasReturning(manager))) {
    const sql =
      dialect === 'sqlite'
        ? `INSERT INTO ${INTO} VALUES ${rows} ON CONFLICT (tenant_id, idempotency_key) DO NOTHING RETURNING id, idempotency_key`
        : `INSERT IGNORE INTO ${INTO} VALUES ${rows} RETURNING id, idempotency_key`;
    const { rows: made } = await execute<{ id: unknown; idempotency_key: unknown }>(manager, sql, values.flat());
    return new Map(made.map((r) => [String(r.idempotency_key), num(r.id)]));
  }
  const { rows: before } = await execute<{ idempotency_key: unknown }>(
    manager,
    `SELECT idempotency_key FROM events WHERE tenant_id = ? AND idempotency_key IN (${placeholders(keys.length)})`,
    [tenantId, ...keys],
  );
  const stored = new Set(before.map((r) => String(r.idempotency_key)));
  await execute(manager, `INSERT INTO ${INTO} VALUES ${rows} ON DUPLICATE KEY UPDATE id = id`, values.flat());
  return new Map(keys.filter((k) => !stored.has(k)).map((k) => [k, null]));
}
