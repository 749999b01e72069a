import { beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../../../../test/support/databases';
import { findNextPlannedFires, findNextPlannedFiresSql } from './find-next-planned-fires';

const T = 1_790_000_000_000;
const TASKS = 50;

describe('the next planned fires of a page of tasks on mysql', () => {
  const db = useTestDatabase('mysql');

  beforeAll(async () => {
    // Each task: 200 ended runs, one under way (its instant come), one withdrawn, and 10 fires planned ahead.
    for (let task = 1; task <= TASKS; task++) {
      const values: string[] = [];
      const run = (state: string, at: number) => values.push(`('acme', ${task}, 'default', '${state}', 'SCHEDULE', 's:${at}', 1, 0, '{}', ${at}, ${at}, ${T}, ${T})`);
      for (let i = 0; i < 200; i++) run('SUCCEEDED', T - 1_000_000 + i * 1_000);
      run('ACCEPTED', T - 500);
      run('CANCELLED', T + 500);
      for (let i = 1; i <= 10; i++) run(i % 2 ? 'PENDING' : 'DISPATCHED', T + task + i * 1_000);
      await db.dataSource.query(`INSERT INTO runs (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at, created_at, updated_at) VALUES ${values.join(',')}`);
    }
    await db.dataSource.query('ANALYZE TABLE runs');
  }, 120_000);

  it('is one statement read from ix_runs_task_filter alone, over the fires planned ahead and not the history', async () => {
    const taskIds = Array.from({ length: TASKS }, (_, i) => i + 1);
    const plan = (await db.dataSource.query(`EXPLAIN ${findNextPlannedFiresSql(TASKS)}`, [...taskIds, T])) as Array<{ key: string | null; Extra: string | null }>;
    expect(plan.map((r) => r.key)).toEqual(['ix_runs_task_filter']);
    expect(plan[0].Extra).toContain('Using index');

    const runner = db.dataSource.createQueryRunner();
    try {
      await runner.query('FLUSH STATUS');
      const next = await findNextPlannedFires(runner.manager, { taskIds, now: T });
      expect(next).toEqual(new Map(taskIds.map((task) => [task, T + task + 1_000])));
      const reads = (await runner.query(`SHOW SESSION STATUS WHERE Variable_name IN ('Handler_read_next', 'Handler_read_key')`)) as Array<{ Value: string }>;
      // ~12 entries per task at most (its active runs); its 200 ended ones are never read.
      expect(reads.reduce((sum, r) => sum + Number(r.Value), 0)).toBeLessThan(TASKS * 20);
    } finally {
      await runner.release();
    }
  });
});
