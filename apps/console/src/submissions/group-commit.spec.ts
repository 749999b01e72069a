import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { GROUP_COMMIT_LIMITS, GroupCommit } from './group-commit';
import { LaneFullError } from './lane-full-error';

/** A writer whose writes the test finishes one by one: what each was given, and a way to answer it. */
function heldWriter() {
  const writes: Array<{ key: string; items: number[]; finish: (fail?: Error) => void }> = [];
  let wrote: () => void = () => undefined;
  const write = (key: string, items: number[]) =>
    new Promise<string[]>((resolve, reject) => {
      writes.push({ key, items, finish: (fail) => (fail ? reject(fail) : resolve(items.map((i) => `${key}:${i}`))) });
      wrote();
    });
  /** Resolves once `n` writes have started. */
  const started = (n: number) =>
    new Promise<void>((resolve) => {
      wrote = () => writes.length >= n && resolve();
      wrote();
    });
  return { writes, write, started };
}

/** One write in flight per key: what waits behind it is deterministic. */
const ONE = { ...GROUP_COMMIT_LIMITS, maxInFlight: 1 };

describe('GroupCommit', () => {
  it('writes an item added to an idle lane on its own, and what arrives meanwhile together in the next write, in order', async () => {
    const w = heldWriter();
    const lane = new GroupCommit(w.write, ONE);
    const first = lane.add('acme', 1);
    await w.started(1);
    const later = [2, 3, 4].map((i) => lane.add('acme', i));
    const second = w.started(2);
    w.writes[0].finish();
    expect(await first).toBe('acme:1');
    await second;
    expect(w.writes.map((x) => x.items)).toEqual([[1], [2, 3, 4]]);
    w.writes[1].finish();
    expect(await Promise.all(later)).toEqual(['acme:2', 'acme:3', 'acme:4']);
  });

  it('joins the items added in one turn of the event loop into one write', async () => {
    const w = heldWriter();
    const lane = new GroupCommit(w.write, ONE);
    const results = [1, 2, 3].map((i) => lane.add('acme', i));
    await w.started(1);
    w.writes[0].finish();
    expect(await Promise.all(results)).toEqual(['acme:1', 'acme:2', 'acme:3']);
    expect(w.writes).toHaveLength(1);
  });

  it("keeps tenants apart: one key's write in flight does not hold another key's items", async () => {
    const w = heldWriter();
    const lane = new GroupCommit(w.write, ONE);
    void lane.add('acme', 1);
    await w.started(1);
    const other = lane.add('globex', 7);
    await w.started(2);
    w.writes[1].finish();
    expect(await other).toBe('globex:7');
    expect(w.writes[0].items).toEqual([1]); // acme's write still in flight
    w.writes[0].finish();
  });

  it('bounds a write by maxBatch (weights summed; an item heavier than the bound goes alone) and refuses past maxWaiting', async () => {
    const w = heldWriter();
    const lane = new GroupCommit(w.write, { maxBatch: 5, maxWaiting: 8, maxInFlight: 1, heavyFrom: 100 });
    const first = lane.add('acme', 1, 9);
    await w.started(1);
    const queued = [lane.add('acme', 2, 3), lane.add('acme', 3, 2), lane.add('acme', 4, 3)];
    await expect(lane.add('acme', 5, 1)).rejects.toBeInstanceOf(LaneFullError);
    w.writes[0].finish();
    await first;
    await w.started(2);
    expect(w.writes[1].items).toEqual([2, 3]);
    w.writes[1].finish();
    await w.started(3);
    expect(w.writes[2].items).toEqual([4]);
    w.writes[2].finish();
    expect(await Promise.all(queued)).toEqual(['acme:2', 'acme:3', 'acme:4']);
  });

  it('starts a second write while the first commits (maxInFlight 2), and holds the rest until one ends', async () => {
    const w = heldWriter();
    const lane = new GroupCommit(w.write, { ...GROUP_COMMIT_LIMITS, maxInFlight: 2 });
    const first = lane.add('acme', 1);
    await w.started(1);
    const second = lane.add('acme', 2);
    await w.started(2);
    const waiting = [lane.add('acme', 3), lane.add('acme', 4)];
    expect(w.writes.map((x) => x.items)).toEqual([[1], [2]]);
    w.writes[1].finish();
    expect(await second).toBe('acme:2');
    await w.started(3);
    expect(w.writes[2].items).toEqual([3, 4]);
    w.writes[0].finish();
    w.writes[2].finish();
    expect(await Promise.all([first, ...waiting])).toEqual(['acme:1', 'acme:3', 'acme:4']);
  });

  it("writes a key's light items beside its heavy ones: an item of heavyFrom or more goes in a lane of its own", async () => {
    const w = heldWriter();
    const lane = new GroupCommit(w.write, { ...ONE, heavyFrom: 100 });
    const batches = [lane.add('acme', 1, 1_000), lane.add('acme', 2, 100)];
    await w.started(1);
    const single = lane.add('acme', 3); // while a batch of 1,000 is written and another waits behind it
    await w.started(2);
    expect(w.writes.map((x) => [x.key, x.items])).toEqual([
      ['acme', [1]],
      ['acme', [3]],
    ]);
    w.writes[1].finish();
    expect(await single).toBe('acme:3');
    w.writes[0].finish();
    await w.started(3);
    expect(w.writes[2].items).toEqual([2]);
    w.writes[2].finish();
    expect(await Promise.all(batches)).toEqual(['acme:1', 'acme:2']);
  });

  it("fails a failed write's items only; the lane goes on with the next", async () => {
    const w = heldWriter();
    const lane = new GroupCommit(w.write, ONE);
    const doomed = lane.add('acme', 1);
    await w.started(1);
    const next = lane.add('acme', 2);
    w.writes[0].finish(new Error('deadlock'));
    await expect(doomed).rejects.toThrow('deadlock');
    await w.started(2);
    w.writes[1].finish();
    expect(await next).toBe('acme:2');
  });

  it('writes outside the async context of the request that opened the batch', async () => {
    const store = new AsyncLocalStorage<string>();
    const seen: Array<string | undefined> = [];
    const lane = new GroupCommit<number, number>(async (_key, items) => {
      seen.push(store.getStore());
      return items;
    });
    await store.run('request-1', () => lane.add('acme', 1));
    expect(seen).toEqual([undefined]);
  });
});
