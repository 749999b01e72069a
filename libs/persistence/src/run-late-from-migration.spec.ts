import { describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../test/support/databases';
import { insertTask, seedTenant } from '../../../test/cluster/support/seed';
import { RunLateFrom1798900000000 } from '../../../migrations/1798900000000-run-late-from';

const NOW = 1_790_000_000_000;

/**
 * Migration 1798900000000 gives the runs alive when it runs the late_from_at a retry gets from
 * now on (its instant): an upgrade must not raise START_LATE for a retry waiting for its backoff,
 * nor measure one from its fire time.
 */
describe.each(TEST_DATABASES)('migration run-late-from on %s', (kind) => {
  const db = useTestDatabase(kind);

  it('gives live retries their instant, and leaves first attempts and ended runs without one', async () => {
    const tenant = await seedTenant(db.dataSource, { id: 'acme', engineGroup: 'default' });
    const taskId = await insertTask(db.dataSource, tenant, { name: 'sync', trigger: { kind: 'MANUAL' } });
    const migration = new RunLateFrom1798900000000();
    const qr = db.dataSource.createQueryRunner();
    try {
      await migration.down(qr);
      const row = (fireKey: string, state: string, attempt: number, dueAt: number, instantAt: number | null) =>
        qr.query(
          `INSERT INTO runs (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at, instant_at, created_at, updated_at)
           VALUES ('acme', ?, 'default', ?, 'MANUAL', ?, ?, 0, 'null', ?, ?, ?, ?, ?)`,
          [taskId, state, fireKey, attempt, NOW, dueAt, instantAt, NOW, NOW],
        );
      await row('m:backoff', 'RETRY_WAIT', 2, NOW + 60_000, null);
      await row('m:deferred', 'RETRY_WAIT', 3, NOW + 90_000, NOW + 70_000); // a dispatch back-off moved due_at past its instant
      await row('m:first', 'PENDING', 1, NOW, null);
      await row('m:ended', 'FAILED', 2, NOW + 5_000, null);
      await migration.up(qr);
      const rows: Array<{ fire_key: string; late_from_at: number | string | null }> = await qr.query('SELECT fire_key, late_from_at FROM runs ORDER BY id');
      expect(rows.map((r) => [r.fire_key, r.late_from_at === null ? null : Number(r.late_from_at)])).toEqual([
        ['m:backoff', NOW + 60_000],
        ['m:deferred', NOW + 70_000],
        ['m:first', null],
        ['m:ended', null],
      ]);
    } finally {
      await qr.release();
    }
  });
});
