import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { EngineGroupEntity } from '../entities';
import { openDatabase } from '../data-source';
import { useTestDatabase } from '../../../../test/support/databases';
import { deferStatement } from '../engine-queries/riders';
import { afterCommit, inTransaction, lockRetryDelayMs, TRANSACTION_ATTEMPTS, whenCommitting } from './transaction';

describe('inTransaction on SQLite', () => {
  let ds: DataSource;
  beforeAll(async () => {
    ds = await openDatabase('sqlite::memory:');
  });
  afterAll(() => ds?.destroy());
  // Each test reads the table whole, so none may see another's rows, in any order.
  beforeEach(() => ds.getRepository(EngineGroupEntity).clear());

  const group = (name: string) => ({ name, description: '', createdAt: 1 });
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it('does not let a failing transaction roll back an overlapping one', async () => {
    const failing = inTransaction(ds, async (em) => {
      await em.insert(EngineGroupEntity, group('doomed'));
      await tick();
      await tick();
      throw new Error('boom');
    });
    const other = inTransaction(ds, async (em) => {
      await em.insert(EngineGroupEntity, group('survivor'));
      await tick();
    });
    await expect(failing).rejects.toThrow('boom');
    await other;
    const names = (await ds.getRepository(EngineGroupEntity).find()).map((g) => g.name);
    expect(names).toEqual(['survivor']);
  });

  it('runs transactions one at a time, in call order, and returns their results', async () => {
    const order: string[] = [];
    const results = await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        inTransaction(ds, async () => {
          order.push(`start ${name}`);
          await tick();
          order.push(`end ${name}`);
          return name;
        }),
      ),
    );
    expect(results).toEqual(['a', 'b', 'c']);
    expect(order).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('runs afterCommit hooks once the rows are visible outside, and never for a rolled-back transaction', async () => {
    const seen: string[][] = [];
    const names = async () => (await ds.getRepository(EngineGroupEntity).find()).map((g) => g.name).sort();
    await inTransaction(ds, async (em) => {
      await em.insert(EngineGroupEntity, group('hooked'));
      afterCommit(em, () => void names().then((n) => seen.push(n)));
    });
    await tick();
    await tick();
    expect(seen).toEqual([expect.arrayContaining(['hooked'])]);
    let ran = false;
    await expect(
      inTransaction(ds, async (em) => {
        afterCommit(em, () => (ran = true));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(ran).toBe(false);
    let outside = false;
    afterCommit(ds.manager, () => (outside = true));
    expect(outside).toBe(true);
  });

  it('runs whenCommitting hooks as afterCommit ones here (one shared connection: a write from a hook would join the transaction)', async () => {
    const seen: string[][] = [];
    await inTransaction(ds, async (em) => {
      await em.insert(EngineGroupEntity, group('announced'));
      whenCommitting(em, () => void ds.getRepository(EngineGroupEntity).find().then((rows) => seen.push(rows.map((g) => g.name))));
    });
    await tick();
    await tick();
    expect(seen).toEqual([['announced']]);
  });

  it('keeps a committed transaction committed when an afterCommit hook throws', async () => {
    const warned = new Promise<string>((resolve) => process.once('warning', (w) => resolve(w.message)));
    const result = await inTransaction(ds, async (em) => {
      afterCommit(em, () => {
        throw new Error('hook broke');
      });
      return 42;
    });
    expect(result).toBe(42);
    expect(await warned).toMatch(/afterCommit hook failed: Error: hook broke/);
  });
});

describe('inTransaction on MariaDB', () => {
  const db = useTestDatabase('mysql');

  it('runs a transaction again when InnoDB rolls it back as a deadlock victim', async () => {
    const ds = db.dataSource;
    await ds.getRepository(EngineGroupEntity).insert([
      { name: 'a', description: '', createdAt: 1 },
      { name: 'b', description: '', createdAt: 1 },
    ]);
    // Two transactions lock a then b, and b then a: a real deadlock on their first run.
    let arrived = 0;
    let bothHoldTheirFirstLock!: () => void;
    const barrier = new Promise<void>((resolve) => (bothHoldTheirFirstLock = resolve));
    let runs = 0;
    const crossing = (first: string, second: string) =>
      inTransaction(ds, async (em) => {
        runs++;
        await em.query('SELECT name FROM engine_groups WHERE name = ? FOR UPDATE', [first]);
        if (++arrived === 2) bothHoldTheirFirstLock();
        if (arrived <= 2) await barrier;
        await em.query('UPDATE engine_groups SET description = ? WHERE name = ?', [`by ${first}`, second]);
      });
    await Promise.all([crossing('a', 'b'), crossing('b', 'a')]);
    expect(runs).toBe(3); // one victim, run again
    const rows = await ds.query('SELECT name, description FROM engine_groups ORDER BY name');
    expect(rows).toEqual([
      { name: 'a', description: 'by b' },
      { name: 'b', description: 'by a' },
    ]);
  });

  it('runs a whenCommitting hook as the COMMIT leaves, before its answer, and never for work that failed', async () => {
    const ds = db.dataSource;
    await ds.query("INSERT INTO engine_groups (name, description, created_at) VALUES ('held', '', 1)");
    // Another session holds a row the COMMIT's packet writes (a deferred write rides with it): that
    // COMMIT is answered only once the hook has let the row go, so a hook run after the answer would wait for ever.
    const blocker = ds.createQueryRunner();
    await blocker.connect();
    try {
      await blocker.startTransaction();
      await blocker.query("UPDATE engine_groups SET description = 'by the blocker' WHERE name = 'held'");
      let moved: Promise<unknown> | null = null;
      let released: Promise<void> | null = null;
      let attempts = 0;
      await inTransaction(ds, async (em) => {
        attempts++;
        await em.query("INSERT INTO engine_groups (name, description, created_at) VALUES ('fresh', '', 1)");
        await deferStatement(em, "UPDATE engine_groups SET description = 'by the transaction' WHERE name = 'held'", []);
        whenCommitting(em, () => {
          // What an engine's DISPATCHED mark does: an autocommitted UPDATE of the new row, on another connection: it waits for the commit.
          moved = ds.query("UPDATE engine_groups SET description = 'marked' WHERE name = 'fresh' AND description = ''");
          released = blocker.commitTransaction();
        });
      });
      // The blocker's own commit went through: its session was not ended by the server's idle
      // transaction timeout, which is what lets a COMMIT waiting for its row go on when no hook runs before it.
      await expect(released).resolves.toBeUndefined();
      expect(attempts).toBe(1);
      expect((await moved!) as unknown).toMatchObject({ affectedRows: 1 });
      expect(await ds.query("SELECT name, description FROM engine_groups WHERE name IN ('fresh', 'held') ORDER BY name")).toEqual([
        { name: 'fresh', description: 'marked' },
        { name: 'held', description: 'by the transaction' },
      ]);
    } finally {
      await blocker.release();
    }
    let ran = false;
    await expect(
      inTransaction(ds, async (em) => {
        whenCommitting(em, () => (ran = true));
        await em.query('SELECT 1');
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(ran).toBe(false);
  });
});

describe('the wait before a transaction is tried again after a lock conflict', () => {
  it('grows threefold an attempt, random below its bound: 10, 30, 90 ms, 130 ms in all', () => {
    const bounds = Array.from({ length: TRANSACTION_ATTEMPTS - 1 }, (_, i) => lockRetryDelayMs(i + 1, 1));
    expect(bounds).toEqual([10, 30, 90]);
    expect(lockRetryDelayMs(3, 0)).toBe(0);
    expect(lockRetryDelayMs(2, 0.5)).toBe(15);
  });
});
