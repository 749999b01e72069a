import { describe, expect, it } from 'vitest';
import { ManualClock } from '@baton/domain';
import type { DispatchRequest } from '@baton/protocol';
import { DispatchBatcher, NO_BATCH_ROUTE_RECHECK_MS } from './dispatch-batcher';
import type { DispatchAnswer, ExecutorClient, SigningTenant } from './executor-client';

const tenant = { id: 'acme' } as SigningTenant;
/** Each run's deadline is 10 s past the clock's start (make()). */
const req = (runId: number) => ({ runId, attempt: 1, deadline: 1_010_000 }) as DispatchRequest;

/** An ExecutorClient stand-in: records what went out, single or batched; `batchRoute` false answers the batch route as an older executor (null). */
class StubClient {
  calls: Array<{ kind: 'single' | 'batch'; runIds: number[] }> = [];
  /** The startInMs of each run as it went out. */
  startIn = new Map<number, number | undefined>();
  /** The deadlineInMs of each run as it went out. */
  deadlineIn = new Map<number, number | undefined>();
  batchRoute = true;
  private release: Array<() => void> = [];
  hold = false;

  async dispatch(_url: string, _t: SigningTenant, r: DispatchRequest): Promise<DispatchAnswer> {
    this.calls.push({ kind: 'single', runIds: [r.runId] });
    this.startIn.set(r.runId, r.startInMs);
    this.deadlineIn.set(r.runId, r.deadlineInMs);
    await this.wait();
    return { kind: 'ACCEPTED', status: 202, credit: r.runId };
  }

  async dispatchBatch(_url: string, _t: SigningTenant, rs: readonly DispatchRequest[]): Promise<DispatchAnswer[] | null> {
    this.calls.push({ kind: 'batch', runIds: rs.map((r) => r.runId) });
    for (const r of rs) {
      this.startIn.set(r.runId, r.startInMs);
      this.deadlineIn.set(r.runId, r.deadlineInMs);
    }
    await this.wait();
    if (!this.batchRoute) return null;
    return rs.map((r) => (r.runId % 2 ? { kind: 'ACCEPTED', status: 202, credit: r.runId } : { kind: 'BUSY', status: 429 }));
  }

  open(): void {
    this.hold = false;
    this.release.splice(0).forEach((r) => r());
  }

  private wait(): Promise<void> {
    return this.hold ? new Promise((r) => this.release.push(r)) : Promise.resolve();
  }
}

function make() {
  const client = new StubClient();
  const clock = new ManualClock(1_000_000);
  return { client, clock, batcher: new DispatchBatcher(client as unknown as ExecutorClient, clock) };
}

describe('DispatchBatcher (issue 11 item 2)', () => {
  it('a run leaves with its wait (sent ahead) and the time left until its deadline counted from when its request leaves, not from when it joined the line', async () => {
    const { client, clock, batcher } = make();
    const T = clock.now() + 2_000;
    client.hold = true;
    const out = [1, 2].map((id) => batcher.dispatch('http://e1', tenant, req(id), T));
    await new Promise((r) => setImmediate(r));
    const out2 = [3, 4].map((id) => batcher.dispatch('http://e1', tenant, req(id), T));
    await new Promise((r) => setImmediate(r));
    const waiting = [5, 6].map((id) => batcher.dispatch('http://e1', tenant, req(id), T));
    const late = batcher.dispatch('http://e1', tenant, req(7), clock.now() + 100);
    clock.advance(300); // the first batches are out this long
    client.open();
    await Promise.all([...out, ...out2, ...waiting, late]);
    expect(Object.fromEntries(client.startIn)).toEqual({ 1: 2_000, 2: 2_000, 3: 2_000, 4: 2_000, 5: 1_700, 6: 1_700, 7: undefined });
    expect(Object.fromEntries(client.deadlineIn)).toEqual({ 1: 10_000, 2: 10_000, 3: 10_000, 4: 10_000, 5: 9_700, 6: 9_700, 7: 9_700 });
  });


  it('a lone dispatch goes out at once on the single route', async () => {
    const { client, batcher } = make();
    expect(await batcher.dispatch('http://e1', tenant, req(1))).toMatchObject({ kind: 'ACCEPTED', credit: 1 });
    expect(client.calls).toEqual([{ kind: 'single', runIds: [1] }]);
  });

  it('runs for one executor sent together leave as one batch, each with its own answer', async () => {
    const { client, batcher } = make();
    const answers = await Promise.all([1, 2, 3].map((id) => batcher.dispatch('http://e1', tenant, req(id))));
    expect(client.calls).toEqual([{ kind: 'batch', runIds: [1, 2, 3] }]);
    expect(answers.map((a) => a.kind)).toEqual(['ACCEPTED', 'BUSY', 'ACCEPTED']);
  });

  it('while two batches are out, the next runs gather into one; other executors have lines of their own', async () => {
    const { client, batcher } = make();
    client.hold = true;
    const first = [1, 2].map((id) => batcher.dispatch('http://e1', tenant, req(id)));
    await new Promise((r) => setImmediate(r));
    const second = [3, 4].map((id) => batcher.dispatch('http://e1', tenant, req(id)));
    await new Promise((r) => setImmediate(r));
    const waiting = [5, 6, 7].map((id) => batcher.dispatch('http://e1', tenant, req(id)));
    const elsewhere = batcher.dispatch('http://e2', tenant, req(9));
    await new Promise((r) => setImmediate(r));
    expect(client.calls).toEqual([
      { kind: 'batch', runIds: [1, 2] },
      { kind: 'batch', runIds: [3, 4] },
      { kind: 'single', runIds: [9] },
    ]);
    client.open();
    await Promise.all([...first, ...second, elsewhere]);
    client.open();
    await Promise.all(waiting);
    expect(client.calls.at(-1)).toEqual({ kind: 'batch', runIds: [5, 6, 7] });
  });

  it('an executor without the batch route gets the runs one by one, and is asked again a minute later', async () => {
    const { client, batcher, clock } = make();
    client.batchRoute = false;
    const answers = await Promise.all([1, 2].map((id) => batcher.dispatch('http://old', tenant, req(id))));
    expect(answers.map((a) => a.kind)).toEqual(['ACCEPTED', 'ACCEPTED']);
    expect(client.calls).toEqual([
      { kind: 'batch', runIds: [1, 2] },
      { kind: 'single', runIds: [1] },
      { kind: 'single', runIds: [2] },
    ]);
    await Promise.all([3, 4].map((id) => batcher.dispatch('http://old', tenant, req(id))));
    expect(client.calls.slice(3).map((c) => c.kind)).toEqual(['single', 'single']);
    clock.advance(NO_BATCH_ROUTE_RECHECK_MS);
    await Promise.all([5, 6].map((id) => batcher.dispatch('http://old', tenant, req(id))));
    expect(client.calls[5]).toEqual({ kind: 'batch', runIds: [5, 6] });
  });
});
