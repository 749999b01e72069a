import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { EngineGroupEntity } from '../entities';
import { openDatabase } from '../data-source';
import { GroupCommit } from './group-commit';

describe('GroupCommit (SQLite)', () => {
  let ds: DataSource;
  beforeAll(async () => {
    ds = await openDatabase('sqlite::memory:');
  });
  afterAll(() => ds?.destroy());
  beforeEach(() => ds.getRepository(EngineGroupEntity).clear());

  const insert = (name: string) => async (em: import('typeorm').EntityManager) => {
    await em.insert(EngineGroupEntity, { name, description: '', createdAt: 1 });
    return name;
  };
  const names = async () => (await ds.getRepository(EngineGroupEntity).find({ order: { name: 'ASC' } })).map((g) => g.name);

  it('commits concurrent works in one transaction, each with its own result', async () => {
    const commits = new GroupCommit(ds);
    let transactions = 0;
    const original = ds.transaction.bind(ds);
    ds.transaction = ((...args: Parameters<DataSource['transaction']>) => {
      transactions++;
      return (original as (...a: unknown[]) => Promise<unknown>)(...args);
    }) as DataSource['transaction'];
    try {
      expect(await Promise.all(['a', 'b', 'c'].map((n) => commits.run(insert(n))))).toEqual(['a', 'b', 'c']);
    } finally {
      ds.transaction = original;
    }
    expect(transactions).toBe(1);
    expect(await names()).toEqual(['a', 'b', 'c']);
  });

  it('a failing work fails alone: the others are committed, its writes are not', async () => {
    const commits = new GroupCommit(ds);
    const doomed = async (em: import('typeorm').EntityManager) => {
      await em.insert(EngineGroupEntity, { name: 'doomed', description: '', createdAt: 1 });
      throw new Error('boom');
    };
    const settled = await Promise.allSettled([commits.run(insert('a')), commits.run(doomed), commits.run(insert('b'))]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason).toEqual(new Error('boom'));
    expect(await names()).toEqual(['a', 'b']);
  });
});
