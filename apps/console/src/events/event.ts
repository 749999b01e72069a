import type { JsonValue } from '@baton/domain';

/**
 * Terminology of the events room:
 * - event: something that happened in a tenant's business, sent to Baton (POST /api/events) — a
 *   name (`order.paid`), a JSON object payload and optionally an idempotency key;
 * - subscriber: a task of the tenant whose EVENT trigger names the event; it is started when the
 *   payload passes the trigger's filter, with the payload (or its projection) as the run's params;
 * - emit: one API call's events (one, or a batch of up to MAX_BATCH_EVENTS), written with the runs
 *   they start through the submissions lane (apps/console/src/submissions), each event in the
 *   transaction of its runs.
 */
export interface EventInput {
  name: string;
  payload: { [key: string]: JsonValue };
  /** One event per tenant and key within the retention window (IDEMPOTENCY_KEY_PATTERN); null: none. */
  idempotencyKey: string | null;
}

/**
 * The key of an inbound webhook's delivery (`h<hook id>:<the sender's id of it>`), in the tenant's
 * events' key space like any event's: a key of this form sent to POST /api/events is refused
 * (WEBHOOK_KEY_FORM), or a tenant's own `h2:evt_1` would answer hook 2's delivery evt_1 with its
 * event, which then stored nothing and started no run.
 */
export function webhookDeliveryKey(hookId: number, senderId: string): string {
  return `h${hookId}:${senderId}`;
}

/** Keys POST /api/events refuses: webhookDeliveryKey's form. */
export const WEBHOOK_KEY_FORM = /^h\d+:/;

/** Most events one batch request carries (and the console's 1 MB body bounds their payloads together). */
export const MAX_BATCH_EVENTS = 500;

/**
 * Most runs one emit may start (its events × the tasks each matches). Without a bound, a tenant with
 * 1,000 tasks listening to one name turned a batch of 500 events into 500,000 runs in one
 * transaction, built on the console's one event loop that every tenant shares; and an event's
 * run ids (`events.run_ids`, TEXT: 64 KB) hold about 5,800 of them at most. Five of POST
 * /api/runs/batch's 1,000.
 */
export const MAX_EMIT_RUNS = 5_000;
