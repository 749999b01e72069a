import type { RunState } from '@baton/domain';
import type { DataSource } from 'typeorm';
import { beforeEach, describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { RunEntity } from '../entities';
import { isUniqueViolation } from '../errors';
import { transitionRun } from './transition-run';

const T = 1_732_240_000_000;

function run(overrides: Partial<RunEntity> = {}): Partial<RunEntity> {
  return {
    tenantId: 'acme',
    taskId: 1,
    engineGroup: 'default',
    state: 'PENDING',
    cause: 'SCHEDULE',
    fireKey: `s:${T}`,
    params: {},
    scheduledAt: T,
    dueAt: T,
    createdAt: T,
    updatedAt: T,
    ...overrides,
  };
}

async function insertRun(dataSource: DataSource, overrides: Partial<RunEntity> = {}): Promise<RunEntity> {
  const repo = dataSource.getRepository(RunEntity);
  return repo.save(repo.create(run(overrides)));
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe.each(TEST_DATABASES)('runs on %s', (kind) => {
  const db = useTestDatabase(kind);
  beforeEach(() => db.clear());

  describe('unique (task_id, fire_key): no duplicate fire', () => {
    it('refuses a second run of the same task and fire key, recognisably', async () => {
      await insertRun(db.dataSource);
      const err = await caught(insertRun(db.dataSource, { state: 'CLAIMED', claimedBy: 'engine-2' }));
      expect(isUniqueViolation(err), String(err)).toBe(true);
      expect(await db.dataSource.getRepository(RunEntity).count()).toBe(1);
    });

    it('recognises it through the raw query path and the driver error too', async () => {
      const sql = 'INSERT INTO runs (tenant_id, task_id, engine_group, state, cause, fire_key, params, scheduled_at, due_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
      const values = ['acme', 7, 'default', 'PENDING', 'SCHEDULE', 's:1', '{}', T, T, T, T];
      await db.dataSource.query(sql, values);
      const err = await caught(db.dataSource.query(sql, values));
      expect(isUniqueViolation(err)).toBe(true);
      expect(isUniqueViolation((err as { driverError: unknown }).driverError)).toBe(true);
    });

    it('allows the same fire key on another task, and another fire key on the same task', async () => {
      await insertRun(db.dataSource);
      await insertRun(db.dataSource, { taskId: 2 });
      await insertRun(db.dataSource, { fireKey: `s:${T + 1000}` });
      expect(await db.dataSource.getRepository(RunEntity).count()).toBe(3);
    });

    it('primary-key duplicates count as unique violations; other errors do not', async () => {
      const first = await insertRun(db.dataSource);
      const dupId = await caught(db.dataSource.getRepository(RunEntity).insert(run({ id: first.id, fireKey: 'm:x' })));
      expect(isUniqueViolation(dupId)).toBe(true);
      const notNull = await caught(db.dataSource.query('INSERT INTO runs (tenant_id) VALUES (?)', ['acme']));
      expect(isUniqueViolation(notNull), String(notNull)).toBe(false);
      const syntax = await caught(db.dataSource.query('SELEC nonsense'));
      expect(isUniqueViolation(syntax)).toBe(false);
      expect(isUniqueViolation(new Error('Duplicate entry'))).toBe(false);
      expect(isUniqueViolation(undefined)).toBe(false);
      expect(isUniqueViolation('ER_DUP_ENTRY')).toBe(false);
    });
  });

  describe('transitionRun: guarded state moves', () => {
    it('moves PENDING → CLAIMED once; the same move again affects nothing', async () => {
      const { id } = await insertRun(db.dataSource);
      const claim = { runId: id, from: 'PENDING', to: 'CLAIMED', now: T + 5, set: { claimedBy: 'engine-1', leaseUntil: T + 30_000 } } as const;
      expect(await transitionRun(db.dataSource.manager, claim)).toBe(true);
      expect(await transitionRun(db.dataSource.manager, { ...claim, set: { claimedBy: 'engine-2' } })).toBe(false);
      const row = await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id });
      expect(row).toMatchObject({ state: 'CLAIMED', claimedBy: 'engine-1', leaseUntil: T + 30_000, updatedAt: T + 5 });
    });

    it('never moves a run backwards (a late message naming an old state loses)', async () => {
      const { id } = await insertRun(db.dataSource, { state: 'SUCCEEDED', finishedAt: T + 9 });
      const late: RunState[] = ['DISPATCHED', 'CLAIMED'];
      expect(await transitionRun(db.dataSource.manager, { runId: id, from: late, to: 'ACCEPTED', now: T + 10 })).toBe(false);
      expect(await transitionRun(db.dataSource.manager, { runId: id, from: [], to: 'FAILED', now: T + 10 })).toBe(false);
      expect(await transitionRun(db.dataSource.manager, { runId: id + 1000, from: 'SUCCEEDED', to: 'FAILED', now: T + 10 })).toBe(false);
      expect((await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id })).state).toBe('SUCCEEDED');
    });

    it('accepts any of several expected states, and works inside a transaction', async () => {
      const { id } = await insertRun(db.dataSource, { state: 'ACCEPTED' });
      const moved = await db.dataSource.transaction((manager) =>
        transitionRun(manager, { runId: id, from: ['DISPATCHED', 'ACCEPTED'], to: 'SUCCEEDED', now: T + 1, set: { result: { ok: 1 }, finishedAt: T + 1 } }),
      );
      expect(moved).toBe(true);
      expect(await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id })).toMatchObject({ state: 'SUCCEEDED', result: { ok: 1 }, finishedAt: T + 1 });
    });

    it('a rolled-back transition leaves the run as it was', async () => {
      const { id } = await insertRun(db.dataSource);
      await expect(
        db.dataSource.transaction(async (manager) => {
          expect(await transitionRun(manager, { runId: id, from: 'PENDING', to: 'CLAIMED', now: T })).toBe(true);
          throw new Error('rollback');
        }),
      ).rejects.toThrow('rollback');
      expect((await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id })).state).toBe('PENDING');
    });

    it('of many concurrent claimers exactly one wins', async () => {
      const { id } = await insertRun(db.dataSource);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          transitionRun(db.dataSource.manager, { runId: id, from: 'PENDING', to: 'CLAIMED', now: T + i, set: { claimedBy: `engine-${i}` } }),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect((await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id })).claimedBy).toBe(`engine-${winner}`);
    });
  });
});
