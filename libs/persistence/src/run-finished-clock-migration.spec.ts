import { describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../test/support/databases';
import { insertTask, seedTenant } from '../../../test/cluster/support/seed';
import { RunFinishedClock1799300000000 } from '../../../migrations/1799300000000-run-finished-clock';

const NOW = 1_790_000_000_000;

/**
 * Migration 1799300000000 marks the ends it can tell were the engine's — the watchdog's timeouts,
 * known by the error only it writes — and leaves every other end unrecorded (the state says).
 */
describe.each(TEST_DATABASES)('migration run-finished-clock on %s', (kind) => {
  const db = useTestDatabase(kind);

  it("marks the watchdog's timeouts the engine's, in runs and in kept attempts; an executor's own timeout and other ends stay unrecorded", async () => {
    const tenant = await seedTenant(db.dataSource, { id: 'acme', engineGroup: 'default' });
    const taskId = await insertTask(db.dataSource, tenant, { name: 'sync', trigger: { kind: 'MANUAL' } });
    const migration = new RunFinishedClock1799300000000();
    const qr = db.dataSource.createQueryRunner();
    try {
      await migration.down(qr);
      const run = async (fireKey: string, state: string, error: string | null): Promise<number> => {
        await qr.query(
          `INSERT INTO runs (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at, finished_at, error, created_at, updated_at)
           VALUES ('acme', ?, 'default', ?, 'MANUAL', ?, 1, 0, 'null', ?, ?, ?, ?, ?, ?)`,
          [taskId, state, fireKey, NOW, NOW, NOW + 1_000, error, NOW, NOW],
        );
        const [{ id }] = (await qr.query('SELECT id FROM runs WHERE fire_key = ?', [fireKey])) as Array<{ id: number | string }>;
        return Number(id);
      };
      await run('m:watchdog', 'TIMED_OUT', 'did not finish within its timeout (ACCEPTED on executor http://10.0.0.7:8090)');
      await run('m:deadline', 'TIMED_OUT', 'aborted (DEADLINE)');
      await run('m:failed', 'FAILED', 'did not finish within its timeout (the handler said so)');
      const retried = await run('m:retried', 'RETRY_WAIT', null);
      await qr.query(
        `INSERT INTO run_attempts (tenant_id, run_id, attempt, state, due_at, finished_at, error, ended_at) VALUES
           ('acme', ?, 1, 'TIMED_OUT', ?, NULL, 'did not finish within its timeout (ACCEPTED on executor 3)', ?),
           ('acme', ?, 2, 'TIMED_OUT', ?, ?, 'aborted (DEADLINE)', ?)`,
        [retried, NOW, NOW + 1_000, retried, NOW, NOW + 2_000, NOW + 2_100],
      );
      await migration.up(qr);
      const runs = (await qr.query('SELECT fire_key, finished_clock FROM runs ORDER BY id')) as Array<{ fire_key: string; finished_clock: string | null }>;
      expect(runs.map((r) => [r.fire_key, r.finished_clock])).toEqual([
        ['m:watchdog', 'engine'],
        ['m:deadline', null],
        ['m:failed', null],
        ['m:retried', null],
      ]);
      const attempts = (await qr.query('SELECT attempt, finished_clock FROM run_attempts ORDER BY attempt')) as Array<{ attempt: number | string; finished_clock: string | null }>;
      expect(attempts.map((a) => [Number(a.attempt), a.finished_clock])).toEqual([
        [1, 'engine'],
        [2, null],
      ]);
    } finally {
      await qr.release();
    }
  });
});
