import { eventMatches, eventRunParams } from '@baton/domain';
import type { EventSubscriber } from '@baton/persistence';
import type { Submission } from '../submissions/submission';
import type { EventInput } from './event';

/**
 * The runs each event starts, as submissions of the submissions lane: one per subscriber of its
 * name whose filter its payload passes, with the payload (or its projection) as params, each
 * carrying the event's idempotency key (one run per key and task). `owner[k]` says which event
 * submission k belongs to. Pure: the subscribers were read before.
 */
export function eventSubmissions(events: readonly EventInput[], subscribers: readonly EventSubscriber[], traceParent?: string): { submissions: Submission[]; owner: number[] } {
  const byName = new Map<string, EventSubscriber[]>();
  for (const s of subscribers) byName.set(s.event, [...(byName.get(s.event) ?? []), s]);
  const submissions: Submission[] = [];
  const owner: number[] = [];
  events.forEach((event, i) => {
    for (const s of byName.get(event.name) ?? []) {
      if (!eventMatches(event.payload, s.filter)) continue;
      submissions.push({ taskId: s.taskId, params: eventRunParams(event.payload, s.params), event: { idempotencyKey: event.idempotencyKey }, traceParent });
      owner.push(i);
    }
  });
  return { submissions, owner };
}
