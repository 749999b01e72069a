import { insertEvents, setEventRunIds, type EventEntity, type NewEvent } from '@baton/persistence';
import { errorBody } from '@baton/protocol';
import type { AlongsideWriter, SubmissionOutcome } from '../submissions/submission';
import type { EventInput } from './event';

/** One request's events as the submissions lane writes them with their runs (EVENT_ROWS). */
export interface EventsWrite {
  /** The events to store, each idempotency key once (the request's repeats of a key are answered from its first). */
  events: readonly EventInput[];
  /** `owner[k]`: the event that submission k of the request (a run it starts) belongs to. */
  owner: readonly number[];
  /** Each event's row, and whether this request stored it, in order: set as the lane writes them (again when it writes again). */
  written: Array<{ row: EventEntity; created: boolean }>;
  /** The batch's unkeyed events stored (sent ahead by beforeRuns): `written` holds them once it resolves. */
  unkeyedStored?: Promise<void>;
}

/**
 * The events of a batch of the submissions lane, in its runs' transaction, all of them inserted
 * BEFORE its runs and given their runs' ids after them:
 *
 *   insertEvents of the keyed events, run_ids [] — one INSERT for the batch, keys in one order, awaited
 *   insertEvents of the unkeyed events, run_ids [] — one INSERT, sent ahead: in the packet of the runs' INSERT
 *   (the runs' INSERT)
 *   setEventRunIds of the events stored that started runs — one UPDATE by primary key, with the COMMIT
 *
 * Why keyed ones first: the unique key on (tenant, idempotency key) is what serializes two
 * transactions writing one key (two consoles, or the lane's two writes in flight, each having read
 * the key as not stored): the second waits on the first's row until it commits, then finds the key
 * stored. Found stored, the event is a repeat, and none of its runs is written (its submissions are
 * answered here): it is answered with the stored event and that event's runs. Written after the
 * runs, the second transaction had inserted its runs already when it met the key — a run of a task
 * the first event did not match (another name, another payload) committed, for a repeated key,
 * that no event listed.
 *
 * Why unkeyed ones first too: written after the runs with their ids (as they were), their INSERT
 * was a round trip of its own between the runs' and the COMMIT's — the transaction's third, on the
 * way of every event's answer and start. Sent ahead of the runs, it rides in their packet, and
 * their run ids ride with the COMMIT in the UPDATE keyed events needed already: two round trips,
 * as a trigger's, for one statement more (the UPDATE, only where an event started runs).
 */
export const EVENT_ROWS: AlongsideWriter<EventsWrite> = {
  async beforeRuns(em, tenantId, items, now) {
    const keyed = items.flatMap((item) => item.events.flatMap((event, j) => (event.idempotencyKey === null ? [] : [{ item, j, event }])));
    const unkeyed = items.flatMap((item) => item.events.flatMap((event, j) => (event.idempotencyKey === null ? [{ item, j, event }] : [])));
    const stored = await insertEvents(em, tenantId, keyed.map(({ event }) => newEvent(event, [])), now);
    for (const item of items) item.written = new Array(item.events.length);
    keyed.forEach(({ item, j }, n) => (item.written[j] = stored[n]));
    // Sent ahead, not awaited here: the INSERT rides in the packet of the runs' INSERT that follows.
    const unkeyedStored = insertEvents(em, tenantId, unkeyed.map(({ event }) => newEvent(event, [])), now).then((rows) => unkeyed.forEach(({ item, j }, n) => (item.written[j] = rows[n])));
    // Awaited in afterRuns; a packet failing before then fails the transaction, and this with it.
    unkeyedStored.catch(() => undefined);
    for (const item of items) item.unkeyedStored = unkeyedStored;
    return items.map((item) => {
      const notWritten = new Map<number, SubmissionOutcome>();
      item.owner.forEach((j, k) => {
        const key = item.events[j].idempotencyKey;
        if (key !== null && !item.written[j].created) notWritten.set(k, repeated(key));
      });
      return notWritten;
    });
  },

  async afterRuns(em, tenantId, items, outcomes) {
    await Promise.all(items.map((item) => item.unkeyedStored));
    // An event's runs: those of its submissions that have one (made now or found under its key, or
    // its key's COALESCING run, opened or joined, for a task that debounces or throttles per key).
    const runIdsOf = (r: number, j: number) => outcomes[r].flatMap((o, k) => (items[r].owner[k] === j && 'run' in o ? [o.run.id] : []));
    const made = items.flatMap((item, r) => item.written.flatMap(({ row, created }, j) => (created ? [{ row, runIds: runIdsOf(r, j) }] : [])));
    for (const { row, runIds } of made) row.runIds = runIds;
    await setEventRunIds(em, tenantId, made.filter(({ runIds }) => runIds.length > 0).map(({ row }) => row));
    // A repeat of an event another request of this batch stored is answered with that event's runs.
    const byId = new Map(made.map(({ row }) => [row.id, row]));
    for (const item of items) item.written = item.written.map((w) => (w.created ? w : { row: byId.get(w.row.id) ?? w.row, created: false }));
  },
};

function newEvent(event: EventInput, runIds: readonly number[]): NewEvent {
  return { name: event.name, payload: JSON.stringify(event.payload), idempotencyKey: event.idempotencyKey, runIds };
}

/** The outcome of a run a repeated event does not start. */
function repeated(key: string): SubmissionOutcome {
  return { status: 409, error: errorBody(409, { message: `Not written: an event under idempotency key '${key}' was stored first; a repeat starts nothing` }) };
}
