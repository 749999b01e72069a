import { describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { RetryLaterError } from '../common/retry-later-error';
import type { EventInput } from './event';
import { EventReads } from './event-reads';

/** A statement the fake database holds until the test lets it answer. */
interface Pending {
  sql: string;
  params: unknown[];
  answer: (rows: Array<Record<string, unknown>>) => void;
}

/** A DataSource whose statements wait in `pending` (subscriber reads: tasks by tenant and event name). */
function fakeDatabase(): { dataSource: DataSource; pending: Pending[] } {
  const pending: Pending[] = [];
  const runner = {
    query: (sql: string, params: unknown[]) => new Promise((resolve) => pending.push({ sql, params, answer: (records) => resolve({ records, affected: 0 }) })),
    release: async () => undefined,
  };
  const dataSource = { manager: { queryRunner: undefined, connection: { createQueryRunner: () => runner } } } as unknown as DataSource;
  return { dataSource, pending };
}

const event = (name: string): EventInput => ({ name, payload: {}, idempotencyKey: null });
const subscriber = (id: number, name: string) => ({ id, event_name: name, event_filter: null, event_params: null });
/** Answers a subscriber read with a task per event name it asks for (task id = 100 + the name's digit). */
const answerByName = (p: Pending) => p.answer((p.params.slice(1) as string[]).map((name) => subscriber(100 + Number(name.slice(-1)), name)));
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('EventReads', () => {
  it("reads the subscribers of a tenant's requests that arrive together in one statement, and gives each request its own", async () => {
    const { dataSource, pending } = fakeDatabase();
    const reads = new EventReads(dataSource);
    const answers = Promise.all([reads.of('acme', [event('e.1')]), reads.of('acme', [event('e.2'), event('e.1')]), reads.of('acme', [event('e.3')])]);
    await turn();
    expect(pending).toHaveLength(1);
    expect(pending[0].params).toEqual(['acme', 'e.1', 'e.2', 'e.3']);
    answerByName(pending[0]);
    const [a, b, c] = await answers;
    expect(a.subscribers.map((s) => s.taskId)).toEqual([101]);
    expect(b.subscribers.map((s) => s.taskId)).toEqual([101, 102]);
    expect(c.subscribers.map((s) => s.taskId)).toEqual([103]);
  });

  it('holds at most two reads of a tenant in flight: the requests that come meanwhile wait, then go in one read; another tenant does not wait', async () => {
    const { dataSource, pending } = fakeDatabase();
    const reads = new EventReads(dataSource);
    const first = reads.of('acme', [event('e.1')]);
    await turn();
    const second = reads.of('acme', [event('e.2')]);
    await turn();
    const waiting = Array.from({ length: 50 }, (_, i) => reads.of('acme', [event(`e.${i % 10}`)]));
    const globex = reads.of('globex', [event('e.7')]);
    await turn();
    expect(pending.map((p) => p.params[0])).toEqual(['acme', 'acme', 'globex']);
    answerByName(pending[2]);
    expect((await globex).subscribers.map((s) => s.taskId)).toEqual([107]);
    answerByName(pending[0]);
    await first;
    await turn();
    expect(pending).toHaveLength(4);
    expect(pending[3].params).toEqual(['acme', ...Array.from({ length: 10 }, (_, i) => `e.${i}`)]);
    answerByName(pending[1]);
    answerByName(pending[3]);
    await second;
    const got = await Promise.all(waiting);
    expect(got.map((r) => r.subscribers.map((s) => s.taskId))).toEqual(Array.from({ length: 50 }, (_, i) => [100 + (i % 10)]));
  });

  it("answers 429 with Retry-After once a tenant's events waiting reach the bound, and takes its requests again when they have gone", async () => {
    const { dataSource, pending } = fakeDatabase();
    const reads = new EventReads(dataSource, { maxBatch: 1_000, maxWaiting: 10, maxInFlight: 1, heavyFrom: 1_000 });
    const inFlight = reads.of('acme', [event('e.1')]);
    await turn();
    const queued = reads.of('acme', Array.from({ length: 10 }, () => event('e.2')));
    const refused = await reads.of('acme', [event('e.3')]).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(RetryLaterError);
    expect((refused as RetryLaterError).getStatus()).toBe(429);
    expect((refused as RetryLaterError).retryAfterSeconds).toBe(1);
    expect((refused as RetryLaterError).message).toMatch(/10 events of this tenant are waiting/);
    answerByName(pending[0]);
    await inFlight;
    await turn();
    answerByName(pending[1]);
    await queued;
    const later = reads.of('acme', [event('e.3')]);
    await turn();
    answerByName(pending[2]);
    expect((await later).subscribers.map((s) => s.taskId)).toEqual([103]);
  });
});
