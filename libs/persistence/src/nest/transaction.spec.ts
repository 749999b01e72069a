import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { EngineGroupEntity } from '../entities';
import { openDatabase } from '../data-source';
import { inTransaction } from './transaction';

describe('inTransaction on SQLite', () => {
  let ds: DataSource;
  beforeAll(async () => {
    ds = await openDatabase('sqlite::memory:');
  });
  afterAll(() => ds?.destroy());

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
});
