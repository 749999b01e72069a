import { describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../test/support/databases';
import { insertTask, seedTenant } from '../../../test/cluster/support/seed';
import { RunHandBacks1799400000480 } from '../../../migrations/1799400000480-run-hand-backs';

const NOW = 1_790_000_000_000;

/**
 * Migration 1799400000480 counts each run's attempts handed back, and gives a run handed back the
 * dispatch of its first attempt not handed back as first_dispatched_at (a hand-back had kept its
 * own: the run's instant, lateness 0); every other run is left as it was.
 */
describe.each(TEST_DATABASES)('migration run-hand-backs on %s', (kind) => {
  const db = useTestDatabase(kind);

  it('counts hand-backs and keeps the dispatch of the first attempt not handed back', async () => {
    const tenant = await seedTenant(db.dataSource, { id: 'acme', engineGroup: 'default' });
    const taskId = await insertTask(db.dataSource, tenant, { name: 'sync', trigger: { kind: 'MANUAL' } });
    const migration = new RunHandBacks1799400000480();
    const qr = db.dataSource.createQueryRunner();
    try {
      await migration.down(qr);
      const run = async (fireKey: string, attempt: number, firstDispatchedAt: number | null, attempts: Array<[string, number | null]>): Promise<void> => {
        await qr.query(
          `INSERT INTO runs (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at, first_dispatched_at, created_at, updated_at)
           VALUES ('acme', ?, 'default', 'RETRY_WAIT', 'SCHEDULE', ?, ?, 0, 'null', ?, ?, ?, ?, ?)`,
          [taskId, fireKey, attempt, NOW, NOW, firstDispatchedAt, NOW, NOW],
        );
        const [{ id }] = (await qr.query('SELECT id FROM runs WHERE fire_key = ?', [fireKey])) as Array<{ id: number | string }>;
        for (const [k, [state, dispatchedAt]] of attempts.entries()) {
          await qr.query(`INSERT INTO run_attempts (tenant_id, run_id, attempt, state, due_at, dispatched_at, ended_at) VALUES ('acme', ?, ?, ?, ?, ?, ?)`, [Number(id), k + 1, state, NOW, dispatchedAt, NOW + 90_000]);
        }
      };
      await run('s:retried', 2, NOW + 5, [['FAILED', NOW + 5]]);
      await run('s:resent', 2, NOW, [['HANDED_BACK', NOW]]);
      await run('s:mixed', 4, NOW, [['HANDED_BACK', NOW], ['FAILED', NOW + 30_000], ['HANDED_BACK', NOW + 60_000]]);
      await run('s:unsent', 3, null, [['FAILED', null], ['HANDED_BACK', NOW + 40_000]]);
      await migration.up(qr);
      const runs = (await qr.query('SELECT fire_key, hand_backs, first_dispatched_at FROM runs ORDER BY id')) as Array<{ fire_key: string; hand_backs: number | string; first_dispatched_at: number | string | null }>;
      expect(runs.map((r) => [r.fire_key, Number(r.hand_backs), r.first_dispatched_at === null ? null : Number(r.first_dispatched_at)])).toEqual([
        ['s:retried', 0, NOW + 5],
        ['s:resent', 1, null],
        ['s:mixed', 2, NOW + 30_000],
        ['s:unsent', 1, null],
      ]);
    } finally {
      await qr.release();
    }
  });
});
