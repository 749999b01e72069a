import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../../../test/support/databases';
import { countGoingKeyRuns, COUNT_GOING_KEY_RUNS_SQL } from './count-going-key-runs';
import { findHeldKeys, FIND_HELD_KEYS_SQL } from './find-held-keys';
import { lockRunKey } from './lock-run-key';
import { KEY_USE_STEP_MS } from './lock-key-row';
import { releaseHeldKeyRuns } from './release-held-key-runs';
import { storeKeyBucket } from './store-key-bucket';
import { countHeldRuns } from './count-held-runs';
import { inTransaction } from '../../nest';

const T = 1_767_225_600_000;

/**
 * The keys' queries on a table where one key is flooded: 3,000 runs HELD on key 'hot' of task 1,
 * its one going run, 20 going runs of other keys, and 5,000 finished runs of 'hot' (its history).
 * Each read touches only what it says; on MariaDB the plans say so too.
 */
// Steps of one table's life (the last one releases held runs): in this order even when the suite is shuffled.
for (const kind of TEST_DATABASES) describe(`concurrency key queries on ${kind}`, { shuffle: false }, () => {
  const db = useTestDatabase(kind);
  const hot = { tenantId: 'acme', taskId: 1, key: 'hot' };

  const seed = async () => {
    const rows: string[] = [];
    const add = (tenant: string, task: number, state: string, key: string | null, i: number) =>
      rows.push(`('${tenant}', ${task}, 'default', '${state}', 'EVENT', 'k:${rows.length}', 1, 0, '{}', ${T + i}, ${T + i}, ${key === null ? 'NULL' : `'${key}'`}, ${T}, ${T})`);
    for (let i = 0; i < 3000; i++) add('acme', 1, 'HELD', 'hot', i);
    add('acme', 1, 'ACCEPTED', 'hot', 0);
    for (let i = 0; i < 5000; i++) add('acme', 1, 'SUCCEEDED', 'hot', i);
    for (let i = 0; i < 20; i++) add(i % 2 ? 'acme' : 'globex', 1 + (i % 3), i % 4 ? 'DISPATCHED' : 'HELD', `k${i}`, i);
    while (rows.length > 0) {
      await db.dataSource.query(
        `INSERT INTO runs (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at, run_key, created_at, updated_at) VALUES ${rows.splice(0, 2000).join(',')}`,
      );
    }
  };
  beforeAll(seed);

  it('counts a key’s going runs, never its held ones or its history', async () => {
    expect(await countGoingKeyRuns(db.dataSource.manager, hot)).toBe(1);
    expect(await countGoingKeyRuns(db.dataSource.manager, { tenantId: 'acme', taskId: 2, key: 'k1' })).toBe(1);
    expect(await countGoingKeyRuns(db.dataSource.manager, { ...hot, tenantId: 'globex' })).toBe(0);
    if (kind === 'mysql') {
      const [plan] = (await db.dataSource.query(`EXPLAIN ${COUNT_GOING_KEY_RUNS_SQL}`, ['acme', 1, 'hot'])) as Array<{ key: string; type: string; rows: number; Extra: string }>;
      expect(plan).toMatchObject({ key: 'ix_runs_key', type: 'range' });
      expect(plan.Extra).toMatch(/Using index/);
      expect(Number(plan.rows)).toBeLessThan(100);
    }
  });

  it('finds each key with held runs once, tenant by tenant, in one step per key', async () => {
    const keys = await findHeldKeys(db.dataSource.manager, { afterTenant: '', limit: 100 });
    expect(keys.map((k) => `${k.tenantId}/${k.taskId}/${k.key}`)).toEqual(['acme/1/hot', 'globex/1/k0', 'globex/1/k12', 'globex/2/k16', 'globex/2/k4', 'globex/3/k8']);
    expect((await findHeldKeys(db.dataSource.manager, { afterTenant: 'acme', limit: 100 })).every((k) => k.tenantId === 'globex')).toBe(true);
    expect(await countHeldRuns(db.dataSource.manager, 100_000)).toEqual(new Map([['acme', 3000], ['globex', 5]]));
    expect(await countHeldRuns(db.dataSource.manager, 10)).toEqual(new Map([['acme', 10]]));
    if (kind === 'mysql') {
      const [plan] = (await db.dataSource.query(`EXPLAIN ${FIND_HELD_KEYS_SQL}`, ['', 100])) as Array<{ key: string; Extra: string }>;
      expect(plan.key).toBe('ix_runs_key');
      expect(plan.Extra).toMatch(/Using index/);
    }
  });

  it('gives free places to the oldest held runs of the key only, and stores a key’s bucket', async () => {
    const released = await inTransaction(db.dataSource, async (em) => {
      expect(await lockRunKey(em, hot, T)).toBeNull();
      await storeKeyBucket(em, hot, { tokensMilli: 1500, refilledAt: T });
      return releaseHeldKeyRuns(em, { ...hot, count: 2, now: T });
    });
    const [oldest] = (await db.dataSource.query("SELECT MIN(id) AS id FROM runs WHERE run_key = 'hot'")) as Array<{ id: number }>;
    expect(released).toEqual([Number(oldest.id), Number(oldest.id) + 1]);
    expect(await countGoingKeyRuns(db.dataSource.manager, hot)).toBe(3);
    expect(await countHeldRuns(db.dataSource.manager, 100_000)).toEqual(new Map([['acme', 2998], ['globex', 5]]));
    expect(await inTransaction(db.dataSource, (em) => lockRunKey(em, hot, T + 30_000))).toEqual({ tokensMilli: 1500, refilledAt: T });
    // When a run last took the key, to within KEY_USE_STEP_MS: the lock 30 s later wrote nothing, the one 61 s later did.
    const usedAt = async () => Number(((await db.dataSource.query("SELECT used_at FROM run_keys WHERE key_value = 'hot'")) as Array<{ used_at: unknown }>)[0].used_at);
    expect(await usedAt()).toBe(T);
    await inTransaction(db.dataSource, (em) => lockRunKey(em, hot, T + KEY_USE_STEP_MS + 1_000));
    expect(await usedAt()).toBe(T + KEY_USE_STEP_MS + 1_000);
    expect(await inTransaction(db.dataSource, (em) => releaseHeldKeyRuns(em, { ...hot, count: 0, now: T }))).toEqual([]);
  });
});
