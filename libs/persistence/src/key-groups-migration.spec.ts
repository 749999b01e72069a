import { describe, expect, it } from 'vitest';
import { KeyGroups1798400000000 } from '../../../migrations/1798400000000-key-groups';
import { TEST_DATABASES, useTestDatabase } from '../../../test/support/databases';
import { countGoingKeyRuns, findHeldKeys, lockRunKey } from './engine-queries/keys';
import { inTransaction } from './nest';

const T = 1_767_225_600_000;

/**
 * The key groups migration on a database with keys already: each key row becomes its task's scope
 * with its bucket, throttle and use kept, the live keyed runs hold their task's scope (so they are
 * counted and released as before), and `down` gives the task scopes back their task ids and drops
 * the groups' rows.
 */
describe.each(TEST_DATABASES)('key groups migration on %s', (kind) => {
  const db = useTestDatabase(kind);
  const migration = new KeyGroups1798400000000();
  const runner = () => db.dataSource.createQueryRunner();
  const insertRun = (state: string, runKey: string | null, extra: { column: string; value: string } | null = null) =>
    db.dataSource.query(
      `INSERT INTO runs (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at, run_key, created_at, updated_at${extra ? `, ${extra.column}` : ''})
       VALUES ('acme', 7, 'default', ?, 'MANUAL', ?, 1, 0, '{}', ?, ?, ?, ?, ?${extra ? ', ?' : ''})`,
      [state, `m:${state}:${runKey}`, T, T, runKey, T, T, ...(extra ? [extra.value] : [])],
    );
  const scopes = async () =>
    ((await db.dataSource.query('SELECT state, key_scope FROM runs ORDER BY id')) as Array<{ state: string; key_scope: string | null }>).map((r) => `${r.state}:${r.key_scope}`);

  it('moves the keys of tasks to their task scopes, and back', async () => {
    const r = runner();
    try {
      await migration.down(r);
      await r.query('INSERT INTO run_keys (tenant_id, task_id, key_value, tokens_milli, refilled_at, throttle_started_at, throttle_count, throttle_trailing_at, used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)', [
        'acme', 7, 'c1', 1500, T, T + 1, 2, null, T + 2,
      ]);
      for (const [state, key] of [['ACCEPTED', 'c1'], ['HELD', 'c1'], ['SUCCEEDED', 'c1'], ['PENDING', null]] as const) await insertRun(state, key);
      await migration.up(r);
    } finally {
      await r.release();
    }
    const rows = (await db.dataSource.query('SELECT * FROM run_keys')) as Array<Record<string, unknown>>;
    expect(rows.map((k) => ({ ...k, rules_task_id: Number(k.rules_task_id), tokens_milli: Number(k.tokens_milli), used_at: Number(k.used_at) }))).toEqual([
      expect.objectContaining({ tenant_id: 'acme', key_scope: 't:7', key_value: 'c1', rules_task_id: 7, tokens_milli: 1500, used_at: T + 2 }),
    ]);
    // Live keyed runs hold their task's scope; history and unkeyed runs none.
    expect(await scopes()).toEqual(['ACCEPTED:t:7', 'HELD:t:7', 'SUCCEEDED:null', 'PENDING:null']);
    const ref = { tenantId: 'acme', scope: 't:7', key: 'c1' };
    expect(await countGoingKeyRuns(db.dataSource.manager, ref)).toBe(1);
    expect(await findHeldKeys(db.dataSource.manager, { afterTenant: '', limit: 10 })).toEqual([ref]);
    expect(await inTransaction(db.dataSource, (em) => lockRunKey(em, ref, T + 3))).toEqual({ tokensMilli: 1500, refilledAt: T });

    // A group's key and run, then down: the task's key comes back by its task id, the group's goes.
    await inTransaction(db.dataSource, (em) => lockRunKey(em, { tenantId: 'acme', scope: 'g:sync', key: 'c1' }, T));
    await insertRun('DISPATCHED', 'c1', { column: 'key_scope', value: 'g:sync' });
    const back = runner();
    try {
      await migration.down(back);
      const left = (await back.query('SELECT tenant_id, task_id, key_value, tokens_milli FROM run_keys')) as Array<Record<string, unknown>>;
      expect(left.map((k) => [k.tenant_id, Number(k.task_id), k.key_value, Number(k.tokens_milli)])).toEqual([['acme', 7, 'c1', 1500]]);
      await expect(back.query('SELECT key_scope FROM runs')).rejects.toThrow();
      await migration.up(back);
    } finally {
      await back.release();
    }
  });
});
