import type { DataSource } from 'typeorm';
import { beforeEach, describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { RunEntity } from '../entities';
import { isUniqueViolation } from '../errors';
import { cancelRun, cancelTaskRuns, insertManualRun, TASK_DELETED } from '../console-queries';

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

  describe('console run writes: guarded moves', () => {
    it('cancelRun moves an active run to CANCELLED once; the same cancel again affects nothing', async () => {
      const { id } = await insertRun(db.dataSource, { state: 'ACCEPTED' });
      expect(await cancelRun(db.dataSource.manager, { runId: id, tenantId: 'acme', now: T + 5 })).toBe(true);
      expect(await cancelRun(db.dataSource.manager, { runId: id, tenantId: 'acme', now: T + 6 })).toBe(false);
      expect(await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id })).toMatchObject({ state: 'CANCELLED', finishedAt: T + 5, updatedAt: T + 5 });
    });

    it('a run sent ahead and cancelled before its instant: its handover stamps are the cancel\'s, none in the future; earlier ones stay', async () => {
      const instant = T + 10_000;
      const ahead = await insertRun(db.dataSource, { state: 'ACCEPTED', fireKey: 's:ahead', scheduledAt: instant, dueAt: instant, dispatchedAt: instant, acceptedAt: instant });
      const running = await insertRun(db.dataSource, { state: 'ACCEPTED', fireKey: 's:running', dispatchedAt: T + 1, acceptedAt: T + 3 });
      const dispatched = await insertRun(db.dataSource, { state: 'DISPATCHED', fireKey: 's:dispatched', scheduledAt: instant, dueAt: instant, dispatchedAt: T + 1 });
      for (const { id } of [ahead, running, dispatched]) expect(await cancelRun(db.dataSource.manager, { runId: id, tenantId: 'acme', now: T + 5 })).toBe(true);
      const stamps = async (id: number) => {
        const r = await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id });
        return [r.dispatchedAt, r.acceptedAt, r.finishedAt];
      };
      expect(await stamps(ahead.id)).toEqual([T + 5, T + 5, T + 5]);
      expect(await stamps(running.id)).toEqual([T + 1, T + 3, T + 5]);
      expect(await stamps(dispatched.id)).toEqual([T + 1, null, T + 5]);
    });

    it("cancelRun never moves a finished run, nor another tenant's", async () => {
      const { id: done } = await insertRun(db.dataSource, { state: 'SUCCEEDED', finishedAt: T + 9 });
      const { id: theirs } = await insertRun(db.dataSource, { tenantId: 'other', fireKey: 'o' });
      expect(await cancelRun(db.dataSource.manager, { runId: done, tenantId: 'acme', now: T + 10 })).toBe(false);
      expect(await cancelRun(db.dataSource.manager, { runId: theirs, tenantId: 'acme', now: T + 10 })).toBe(false);
      expect((await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id: done })).state).toBe('SUCCEEDED');
      expect((await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id: theirs })).state).toBe('PENDING');
    });

    it('a rolled-back cancel leaves the run as it was', async () => {
      const { id } = await insertRun(db.dataSource);
      await expect(
        db.dataSource.transaction(async (manager) => {
          expect(await cancelRun(manager, { runId: id, tenantId: 'acme', now: T })).toBe(true);
          throw new Error('rollback');
        }),
      ).rejects.toThrow('rollback');
      expect((await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id })).state).toBe('PENDING');
    });

    it('of many concurrent cancels exactly one wins', async () => {
      const { id } = await insertRun(db.dataSource);
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => cancelRun(db.dataSource.manager, { runId: id, tenantId: 'acme', now: T + i })));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it("cancelTaskRuns ends the task's active runs of its tenant only, leaves finished ones, and names those an engine may have sent", async () => {
      const active = await insertRun(db.dataSource, { state: 'RETRY_WAIT', fireKey: 'a' });
      const done = await insertRun(db.dataSource, { state: 'FAILED', fireKey: 'b' });
      const otherTask = await insertRun(db.dataSource, { taskId: 2, fireKey: 'c' });
      const sent = await insertRun(db.dataSource, { state: 'ACCEPTED', fireKey: 'd' });
      // Given back to PENDING by a takeover with its dispatch mark: its executor may hold it.
      const takenOver = await insertRun(db.dataSource, { state: 'PENDING', fireKey: 'e', dispatchedAt: T });
      expect(await cancelTaskRuns(db.dataSource.manager, { taskId: 1, tenantId: 'acme', now: T + 3 })).toEqual({
        cancelled: 3,
        maybeSent: [
          { runId: sent.id, engineGroup: 'default' },
          { runId: takenOver.id, engineGroup: 'default' },
        ],
      });
      const states = async (id: number) => (await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id })).state;
      expect([await states(active.id), await states(done.id), await states(otherTask.id), await states(sent.id), await states(takenOver.id)]).toEqual(['CANCELLED', 'FAILED', 'PENDING', 'CANCELLED', 'CANCELLED']);
      // Each says why it ended.
      expect((await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id: active.id })).error).toBe(TASK_DELETED);
    });

    it('insertManualRun: a PENDING MANUAL run due now, the root of its own flow, a fire key of its own each time; returns the row as stored', async () => {
      const input = { tenantId: 'acme', taskId: 7, engineGroup: 'default', priority: 3, params: { x: 1 }, now: T };
      const first = await insertManualRun(db.dataSource.manager, input);
      const b = (await insertManualRun(db.dataSource.manager, input)).id;
      const a = first.id;
      const rows = await db.dataSource.getRepository(RunEntity).find({ where: { taskId: 7 }, order: { id: 'ASC' } });
      expect(first).toEqual(rows[0]);
      expect(rows.map((r) => [r.id, r.state, r.cause, r.flowId, r.dueAt, r.priority, r.params])).toEqual([
        [a, 'PENDING', 'MANUAL', null, T, 3, { x: 1 }], // the root of its own flow
        [b, 'PENDING', 'MANUAL', null, T, 3, { x: 1 }],
      ]);
      expect(rows[0].fireKey).not.toBe(rows[1].fireKey);
    });
  });
});
