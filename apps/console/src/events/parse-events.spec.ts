import { describe, expect, it } from 'vitest';
import type { EventSubscriber } from '@baton/persistence';
import { eventSubmissions } from './event-runs';
import { MAX_BATCH_EVENTS, type EventInput } from './event';
import { eventPayloadProblem, parseEvent, parseEventBatch } from './parse-events';

describe('parseEvent', () => {
  it('takes a name, a payload (default {}) and an optional key', () => {
    expect(parseEvent({ name: 'order.paid' }, '')).toEqual({ event: { name: 'order.paid', payload: {}, idempotencyKey: null } });
    expect(parseEvent({ name: 'a', payload: { x: 1 }, idempotencyKey: 'k-1' }, '')).toEqual({ event: { name: 'a', payload: { x: 1 }, idempotencyKey: 'k-1' } });
  });

  it('names every problem under its prefix', () => {
    expect(parseEvent({ name: 'bad name', payload: 3, idempotencyKey: 'a b', extra: 1 }, 'events[4].')).toEqual({
      errors: [
        { field: 'events[4].extra', reason: 'is not a field of an event' },
        { field: 'events[4].name', reason: expect.any(String) },
        { field: 'events[4].payload', reason: 'must be a JSON object' },
        { field: 'events[4].idempotencyKey', reason: expect.stringContaining('1 to 62') },
      ],
    });
    expect(parseEvent([], 'events[0].')).toEqual({ errors: [{ field: 'events[0]', reason: 'must be an object' }] });
  });
});

describe('eventPayloadProblem', () => {
  it('takes a JSON object payload up to 64 000 bytes', () => {
    expect(eventPayloadProblem({ a: 1 })).toBeNull();
    expect(eventPayloadProblem([1])).toEqual({ field: 'payload', reason: 'must be a JSON object' });
    expect(eventPayloadProblem('x', 'events[2].payload')).toEqual({ field: 'events[2].payload', reason: 'must be a JSON object' });
    expect(eventPayloadProblem({ a: 'x'.repeat(64_000) })?.reason).toContain('at most 64000');
    expect(eventPayloadProblem({ a: Number.NaN })?.field).toBe('payload.a');
  });
});

describe('parseEventBatch', () => {
  it('parses each item on its own', () => {
    const parsed = parseEventBatch({ events: [{ name: 'a' }, { name: '' }] });
    expect('items' in parsed && parsed.items.map((i) => 'event' in i)).toEqual([true, false]);
  });

  it('refuses a body that is not a list of 1 to MAX_BATCH_EVENTS events, or has other fields', () => {
    for (const events of [undefined, [], {}, Array.from({ length: MAX_BATCH_EVENTS + 1 }, () => ({ name: 'a' }))]) {
      expect(parseEventBatch({ events })).toEqual({ errors: [{ field: 'events', reason: expect.stringContaining(`1 to ${MAX_BATCH_EVENTS}`) }] });
    }
    expect(parseEventBatch({ events: [{ name: 'a' }], name: 'x' } as { events: unknown })).toEqual({ errors: [{ field: 'name', reason: expect.any(String) }] });
    // Refused whole, the body's answer names its items' problems too.
    expect(parseEventBatch({ events: [{ name: 'a' }, { name: '' }], name: 'x' } as { events: unknown })).toEqual({
      errors: [{ field: 'name', reason: expect.any(String) }, { field: 'events[1].name', reason: expect.any(String) }],
    });
  });
});

describe('eventSubmissions', () => {
  const subscribers: EventSubscriber[] = [
    { taskId: 1, event: 'order.paid', filter: { 'customer.tier': 'gold' }, params: { id: 'order.id' } },
    { taskId: 2, event: 'order.paid', filter: {}, params: null },
    { taskId: 3, event: 'order.shipped', filter: {}, params: null },
  ];

  it('makes one submission per matching subscriber, owned by its event, carrying the event key', () => {
    const events: EventInput[] = [
      { name: 'order.paid', payload: { customer: { tier: 'gold' }, order: { id: 7 } }, idempotencyKey: 'k' },
      { name: 'order.paid', payload: { customer: { tier: 'silver' } }, idempotencyKey: null },
      { name: 'nobody', payload: {}, idempotencyKey: null },
    ];
    const { submissions, owner } = eventSubmissions(events, subscribers);
    expect(owner).toEqual([0, 0, 1]);
    expect(submissions).toEqual([
      { taskId: 1, params: { id: 7 }, event: { idempotencyKey: 'k' }, traceParent: undefined },
      { taskId: 2, params: events[0].payload, event: { idempotencyKey: 'k' }, traceParent: undefined },
      { taskId: 2, params: events[1].payload, event: { idempotencyKey: null }, traceParent: undefined },
    ]);
  });

  it('past `max` matches counts the rest without building them (a request its caller refuses whole)', () => {
    const events: EventInput[] = Array.from({ length: 3 }, () => ({ name: 'order.paid', payload: { customer: { tier: 'gold' } }, idempotencyKey: null }));
    const capped = eventSubmissions(events, subscribers, undefined, 4);
    expect(capped.matched).toBe(6);
    expect(capped.submissions).toHaveLength(4);
    expect(capped.owner).toEqual([0, 0, 1, 1]);
    expect(eventSubmissions(events, subscribers).matched).toBe(6);
  });
});
