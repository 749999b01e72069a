import { eventMatches, eventRunParams } from '@baton/domain';
import type { EventSubscriber } from '@baton/persistence';
import type { Submission } from '../submissions/submission';
import type { EventInput } from './event';

/**
 * The runs each event starts, as submissions of the submissions lane: one per subscriber of its
 * name whose filter its payload passes, with the payload (or its projection) as params, each
 * carrying the event's idempotency key (one run per key and task). `owner[k]` says which event
 * submission k belongs to; `matched`, how many runs the events start. Past `max` matches the rest
 * are only counted, not built: the caller refuses such a request whole (MAX_EMIT_RUNS), and a
 * tenant's hostile fan-out must not fill the console's one event loop first. Pure: the
 * subscribers were read before.
 */
export function eventSubmissions(
  events: readonly EventInput[],
  subscribers: readonly EventSubscriber[],
  traceParent?: string,
  max = Infinity,
): { submissions: Submission[]; owner: number[]; matched: number } {
  const byName = new Map<string, EventSubscriber[]>();
  for (const s of subscribers) {
    const named = byName.get(s.event);
    if (named) named.push(s);
    else byName.set(s.event, [s]);
  }
  const submissions: Submission[] = [];
  const owner: number[] = [];
  let matched = 0;
  events.forEach((event, i) => {
    for (const s of byName.get(event.name) ?? []) {
      if (!eventMatches(event.payload, s.filter)) continue;
      if (++matched > max) continue;
      submissions.push({ taskId: s.taskId, params: eventRunParams(event.payload, s.params), event: { idempotencyKey: event.idempotencyKey }, traceParent });
      owner.push(i);
    }
  });
  return { submissions, owner, matched };
}
