import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../../../test/support/databases';
import { countGoingKeyRuns, COUNT_GOING_KEY_RUNS_SQL } from './count-going-key-runs';
import { findHeldKeys, FIND_HELD_KEYS_SQL } from './find-held-keys';
import { lockRunKey } from './lock-run-key';
import { KEY_USE_STEP_MS } from './lock-key-row';
import { releaseHeldKeyRuns } from './release-held-key-runs';
import { findHeldKeyRuns, FIND_HELD_KEY_RUNS_SQL } from './find-held-key-runs';
import { storeKeyBucket } from './store-key-bucket';
import { countHeldRuns } from './count-held-runs';
import { cancelOldestKeyRuns } from './cancel-oldest-key-runs';
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
  const hot = { tenantId: 'acme', scope: 't:1', key: 'hot' };

  const seed = async () => {
    const rows: string[] = [];
    const add = (tenant: string, task: number, state: string, key: string | null, i: number) =>
      rows.push(`('${tenant}', ${task}, 'default', '${state}', 'EVENT', 'k:${rows.length}', 1, 0, '{}', ${T + i}, ${T + i}, ${key === null ? 'NULL' : `'${key}', 't:${task}'`}, ${T}, ${T})`);
    for (let i = 0; i < 3000; i++) add('acme', 1, 'HELD', 'hot', i);
    add('acme', 1, 'ACCEPTED', 'hot', 0);
    for (let i = 0; i < 5000; i++) add('acme', 1, 'SUCCEEDED', 'hot', i);
    for (let i = 0; i < 20; i++) add(i % 2 ? 'acme' : 'globex', 1 + (i % 3), i % 4 ? 'DISPATCHED' : 'HELD', `k${i}`, i);
    while (rows.length > 0) {
      await db.dataSource.query(
        `INSERT INTO runs (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at, run_key, key_scope, created_at, updated_at) VALUES ${rows.splice(0, 2000).join(',')}`,
      );
    }
  };
  beforeAll(seed);

  it('counts a key’s going runs, never its held ones or its history', async () => {
    expect(await countGoingKeyRuns(db.dataSource.manager, hot)).toBe(1);
    expect(await countGoingKeyRuns(db.dataSource.manager, { tenantId: 'acme', scope: 't:2', key: 'k1' })).toBe(1);
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
    expect(keys.map((k) => `${k.tenantId}/${k.scope}/${k.key}`)).toEqual(['acme/t:1/hot', 'globex/t:1/k0', 'globex/t:1/k12', 'globex/t:2/k16', 'globex/t:2/k4', 'globex/t:3/k8']);
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
      await storeKeyBucket(em, hot, { tokensMilli: 1500, refilledAt: T }, 1);
      const held = await findHeldKeyRuns(em, { ...hot, afterId: 0, limit: 2 });
      expect(await releaseHeldKeyRuns(em, { ids: held.map((h) => h.id), now: T })).toBe(2);
      return held;
    });
    const [oldest] = (await db.dataSource.query("SELECT MIN(id) AS id FROM runs WHERE run_key = 'hot'")) as Array<{ id: number }>;
    expect(released).toEqual([{ id: Number(oldest.id), taskId: 1 }, { id: Number(oldest.id) + 1, taskId: 1 }]);
    // The next page starts after the last run read.
    expect((await findHeldKeyRuns(db.dataSource.manager, { ...hot, afterId: Number(oldest.id) + 1, limit: 1 }))[0].id).toBe(Number(oldest.id) + 2);
    if (kind === 'mysql') {
      // The key's HELD entries of ix_runs_key, already in id order: no sort, so the LIMIT stops the read at a page of its 3,000.
      const [plan] = (await db.dataSource.query(`EXPLAIN ${FIND_HELD_KEY_RUNS_SQL}`, ['acme', 't:1', 'hot', 0, 16])) as Array<{ key: string; Extra: string }>;
      expect(plan.key).toBe('ix_runs_key');
      expect(plan.Extra ?? '').not.toMatch(/filesort|temporary/);
    }
    expect(await countGoingKeyRuns(db.dataSource.manager, hot)).toBe(3);
    expect(await countHeldRuns(db.dataSource.manager, 100_000)).toEqual(new Map([['acme', 2998], ['globex', 5]]));
    expect(await inTransaction(db.dataSource, (em) => lockRunKey(em, hot, T + 30_000))).toEqual({ tokensMilli: 1500, refilledAt: T });
    // When a run last took the key, to within KEY_USE_STEP_MS: the lock 30 s later wrote nothing, the one 61 s later did.
    const usedAt = async () => Number(((await db.dataSource.query("SELECT used_at FROM run_keys WHERE key_value = 'hot'")) as Array<{ used_at: unknown }>)[0].used_at);
    expect(await usedAt()).toBe(T);
    await inTransaction(db.dataSource, (em) => lockRunKey(em, hot, T + KEY_USE_STEP_MS + 1_000));
    expect(await usedAt()).toBe(T + KEY_USE_STEP_MS + 1_000);
    expect(await inTransaction(db.dataSource, (em) => releaseHeldKeyRuns(em, { ids: [], now: T }))).toBe(0);
  });

  it('counts, holds, cancels and buckets a key group’s key across its tasks, apart from other keys and from another tenant’s group of the name', async () => {
    // Tasks 11 and 12 of initech share group 'sync'; umbrella's task 21 names a group 'sync' too.
    const sync = { tenantId: 'initech', scope: 'g:sync', key: 'c1' };
    const ids: Record<string, number> = {};
    for (const [name, tenant, task, state, scope, key] of [
      ['first', 'initech', 11, 'ACCEPTED', 'g:sync', 'c1'],
      ['second', 'initech', 12, 'HELD', 'g:sync', 'c1'],
      ['third', 'initech', 11, 'HELD', 'g:sync', 'c1'],
      ['otherKey', 'initech', 12, 'ACCEPTED', 'g:sync', 'c2'],
      ['ownKey', 'initech', 12, 'ACCEPTED', 't:12', 'c1'],
      ['theirs', 'umbrella', 21, 'ACCEPTED', 'g:sync', 'c1'],
    ] as const) {
      await db.dataSource.query(
        `INSERT INTO runs (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at, run_key, key_scope, created_at, updated_at)
         VALUES (?, ?, 'default', ?, 'EVENT', ?, 1, 0, '{}', ?, ?, ?, ?, ?, ?)`,
        [tenant, task, state, `g:${name}`, T, T, key, scope, T, T],
      );
      ids[name] = Number(((await db.dataSource.query('SELECT MAX(id) AS id FROM runs')) as Array<{ id: unknown }>)[0].id);
    }
    const em = db.dataSource.manager;
    expect(await countGoingKeyRuns(em, sync)).toBe(1); // task 11's run, not task 12's own key's, nor umbrella's
    expect(await countGoingKeyRuns(em, { ...sync, key: 'c2' })).toBe(1);
    expect(await countGoingKeyRuns(em, { ...sync, tenantId: 'umbrella' })).toBe(1);
    expect((await findHeldKeys(em, { afterTenant: 'globex', limit: 100 })).map((k) => `${k.tenantId}/${k.scope}/${k.key}`)).toEqual(['initech/g:sync/c1']);
    expect(await findHeldKeyRuns(em, { ...sync, afterId: 0, limit: 10 })).toEqual([{ id: ids.second, taskId: 12 }, { id: ids.third, taskId: 11 }]);

    // CANCEL_OLDEST by a run of task 12 cancels the group's oldest going run, task 11's; umbrella's stays.
    const cancelled = await inTransaction(db.dataSource, async (tx) => {
      await lockRunKey(tx, sync, T);
      return cancelOldestKeyRuns(tx, { ...sync, count: 1, except: [], reason: 'newer', now: T });
    });
    expect(cancelled).toEqual([{ id: ids.first, sent: true }]);
    expect(await countGoingKeyRuns(em, sync)).toBe(0);
    expect(await countGoingKeyRuns(em, { ...sync, tenantId: 'umbrella' })).toBe(1);

    // One bucket for the group's key, whichever task's run takes from it; umbrella's group has its own.
    await inTransaction(db.dataSource, async (tx) => {
      expect(await lockRunKey(tx, sync, T)).toBeNull();
      await storeKeyBucket(tx, sync, { tokensMilli: 0, refilledAt: T }, 11);
    });
    expect(await inTransaction(db.dataSource, (tx) => lockRunKey(tx, sync, T + 1))).toEqual({ tokensMilli: 0, refilledAt: T });
    expect(await inTransaction(db.dataSource, (tx) => lockRunKey(tx, { ...sync, tenantId: 'umbrella' }, T + 1))).toBeNull();
    const rows = (await db.dataSource.query("SELECT tenant_id, key_scope, rules_task_id FROM run_keys WHERE key_value = 'c1' ORDER BY tenant_id")) as Array<Record<string, unknown>>;
    expect(rows.map((r) => [r.tenant_id, r.key_scope, r.rules_task_id === null ? null : Number(r.rules_task_id)])).toEqual([
      ['initech', 'g:sync', 11],
      ['umbrella', 'g:sync', null],
    ]);
  });
});
