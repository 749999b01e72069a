import type { EntityManager } from 'typeorm';
import { caseById, chunks, placeholders } from '../../engine-queries/sql';
import { deferStatement } from '../../engine-queries/riders';

/**
 * The runs events started, written on their rows once the runs are inserted, in the transaction
 * that inserted both (statements of at most MAX_ROWS_PER_STATEMENT events):
 *
 *   UPDATE events SET run_ids = CASE id WHEN ? THEN ? … END WHERE tenant_id = ? AND id IN (…)   -- primary key
 *
 * For the events the console writes before their runs (apps/console/src/events/event-rows.ts):
 * their run ids are not known when their rows go in. Deferred (deferStatement): in a transaction it
 * rides with the COMMIT, since nothing waits for its answer. The rows are this transaction's own (locked
 * by their INSERT), found by primary key: no wait, no other index read; an upsert of the same rows
 * (INSERT … ON DUPLICATE KEY UPDATE) would go through the unique key again and take an AUTO-INC
 * value a row on MariaDB.
 */
export async function setEventRunIds(manager: EntityManager, tenantId: string, events: ReadonlyArray<{ id: number; runIds: readonly number[] }>): Promise<void> {
  for (const part of chunks(events)) {
    const runIds = caseById(part, (e) => e.id, (e) => JSON.stringify(e.runIds));
    await deferStatement(manager, `UPDATE events SET run_ids = ${runIds.sql} WHERE tenant_id = ? AND id IN (${placeholders(part.length)})`, [...runIds.params, tenantId, ...part.map((e) => e.id)]);
  }
}
