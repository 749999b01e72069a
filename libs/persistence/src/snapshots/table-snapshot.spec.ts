import { describe, expect, it } from 'vitest';
import { TableSnapshot } from './table-snapshot';

function snapshotOf(read: () => Promise<number[]>) {
  let now = 1_000;
  const errors: string[] = [];
  const table = new TableSnapshot(read, { initial: [], now: () => now, onError: (err) => errors.push(err.message) });
  return { table, errors, advance: (ms: number) => (now += ms) };
}

describe('TableSnapshot (small tables re-read now and then: tenants, peers, executors, wake-up secrets)', () => {
  it('shares one read among concurrent callers, and serves the snapshot in between', async () => {
    let reads = 0;
    const { table, advance } = snapshotOf(async () => [++reads]);
    expect(table.value).toEqual([]);
    expect(table.ageMs).toBe(Infinity);
    await Promise.all([table.refresh(), table.refresh(), table.fresh(0)]);
    expect(reads).toBe(1);
    expect(table.value).toEqual([1]);
    advance(400);
    expect(await table.fresh(500)).toEqual([1]); // young enough: no read
    expect(reads).toBe(1);
    advance(200);
    expect(await table.fresh(500)).toEqual([2]);
  });

  it('reads in the background when old, the caller going on with what it has', async () => {
    let reads = 0;
    const { table, advance } = snapshotOf(async () => [++reads]);
    await table.refresh();
    advance(1_000);
    expect(table.refreshIfOlder(500)).toEqual([1]);
    await table.refresh(); // joins the background read
    expect(reads).toBe(2);
    expect(table.value).toEqual([2]);
  });

  it('current: awaits only the first read, then serves what it has and re-reads old snapshots beside the caller', async () => {
    let reads = 0;
    let release = () => {};
    const { table, advance } = snapshotOf(() => new Promise<number[]>((resolve) => (release = () => resolve([++reads]))));
    const first = table.current(500);
    release();
    expect(await first).toEqual([1]);
    advance(600);
    // The second read hangs (a slow database): the caller is answered from the snapshot at once.
    expect(await table.current(500)).toEqual([1]);
    expect(reads).toBe(1);
    release();
    await table.refresh();
    expect(await table.current(500)).toEqual([2]);
  });

  it('keeps the last snapshot when a read fails, says so, and does not read again before the age is up', async () => {
    let fail = false;
    let reads = 0;
    const { table, errors, advance } = snapshotOf(async () => {
      reads++;
      if (fail) throw new Error('database down');
      return [reads];
    });
    await table.refresh();
    fail = true;
    advance(1_000);
    expect(await table.fresh(500)).toEqual([1]);
    expect(errors).toEqual(['database down']);
    expect(table.ageMs).toBe(0);
    await table.fresh(500);
    expect(reads).toBe(2);
  });
});
