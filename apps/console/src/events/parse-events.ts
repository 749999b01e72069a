import { eventNameProblem, paramsProblem, type FieldError, type JsonValue } from '@baton/domain';
import { IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_KEY_RULE } from '../submissions/submission';
import { MAX_BATCH_EVENTS, WEBHOOK_KEY_FORM, type EventInput } from './event';

const FIELDS = new Set(['name', 'payload', 'idempotencyKey']);

export const WEBHOOK_KEY_REASON = 'must not start with h<digits>: (the form of inbound webhooks\' delivery keys, which share the tenant\'s event keys)';

/** Why `payload` cannot be an event's payload (a JSON object of at most MAX_EVENT_PAYLOAD_BYTES, a run's params' bound), or null. */
export function eventPayloadProblem(payload: unknown, field = 'payload'): FieldError | null {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return { field, reason: 'must be a JSON object' };
  return paramsProblem(payload, field);
}

/**
 * One event of a body, or every problem of it, each naming its field under `prefix` (`events[3].`).
 * `delivery`: an inbound webhook's, whose key alone may take webhookDeliveryKey's form.
 */
export function parseEvent(item: unknown, prefix: string, delivery = false): { event: EventInput } | { errors: FieldError[] } {
  const at = prefix.endsWith('.') ? prefix.slice(0, -1) : prefix;
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return { errors: [{ field: at, reason: 'must be an object' }] };
  const fields = item as Record<string, unknown>;
  const errors: FieldError[] = [];
  // A key sent as undefined is not sent (the request's DTO lists every field it documents).
  for (const key of Object.keys(fields)) if (!FIELDS.has(key) && fields[key] !== undefined) errors.push({ field: `${prefix}${key}`, reason: 'is not a field of an event' });
  const name = eventNameProblem(fields.name);
  if (name) errors.push({ field: `${prefix}name`, reason: name });
  const payload = fields.payload === undefined ? {} : fields.payload;
  const payloadProblem = eventPayloadProblem(payload, `${prefix}payload`);
  if (payloadProblem) errors.push(payloadProblem);
  const key = fields.idempotencyKey;
  if (key !== undefined && key !== null && (typeof key !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(key))) errors.push({ field: `${prefix}idempotencyKey`, reason: IDEMPOTENCY_KEY_RULE });
  else if (!delivery && typeof key === 'string' && WEBHOOK_KEY_FORM.test(key)) errors.push({ field: `${prefix}idempotencyKey`, reason: WEBHOOK_KEY_REASON });
  if (errors.length > 0) return { errors };
  return { event: { name: fields.name as string, payload: payload as { [key: string]: JsonValue }, idempotencyKey: (key as string | null | undefined) ?? null } };
}

/**
 * The body of a batch (`{ events: [...] }`): each item parsed on its own — a bad item is its own
 * 400, the others go on — or, when the body is not a batch (a field beside `events`, or `events`
 * not a list of 1 to MAX_BATCH_EVENTS), the errors of the whole body, its items' among them.
 */
export function parseEventBatch(body: { events?: unknown }): { items: Array<{ event: EventInput } | { errors: FieldError[] }> } | { errors: FieldError[] } {
  const errors: FieldError[] = [];
  for (const key of Object.keys(body)) if (key !== 'events' && (body as Record<string, unknown>)[key] !== undefined) errors.push({ field: key, reason: 'is not a field of a batch of events (give `events` alone)' });
  const events = body.events;
  if (!Array.isArray(events) || events.length === 0 || events.length > MAX_BATCH_EVENTS) return { errors: [...errors, { field: 'events', reason: `must be an array of 1 to ${MAX_BATCH_EVENTS} events` }] };
  const items = events.map((item: unknown, i) => parseEvent(item, `events[${i}].`));
  return errors.length > 0 ? { errors: [...errors, ...items.flatMap((item) => ('errors' in item ? item.errors : []))] } : { items };
}
