import { beforeEach, describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../../../test/support/databases';
import { insertTask, seedTenant } from '../../../../../test/cluster/support/seed';
import { RunEntity } from '../../entities';
import { findChangedRuns } from './find-changed-runs';
import { listRuns, RUN_LIST_COLUMNS, type ListedRun } from './list-runs';
import { newRunRow } from './new-run-row';

const NOW = 1_790_000_000_000;

/** The columns a run as read has values in (under vitest's compiler an entity has every declared field, undefined until read). */
const readColumns = (run: ListedRun) => Object.keys(run).filter((k) => run[k as keyof ListedRun] !== undefined).sort();

describe.each(TEST_DATABASES)("run lists' columns on %s", (kind) => {
  const db = useTestDatabase(kind);
  const big = 'x'.repeat(20_000);
  let run: RunEntity;

  beforeEach(async () => {
    await db.clear();
    const tenant = await seedTenant(db.dataSource, { id: 'acme', engineGroup: 'default' });
    const taskId = await insertTask(db.dataSource, tenant, { name: 'report', trigger: { kind: 'MANUAL' } });
    const repo = db.dataSource.getRepository(RunEntity);
    run = repo.create({
      ...newRunRow({ tenantId: 'acme', taskId, engineGroup: 'default', priority: 0, params: { big }, flowParams: JSON.stringify({ big }), fireKey: 'm:1', cause: 'MANUAL', traceParent: null, now: NOW }),
      state: 'FAILED',
      result: { big },
      parentResults: JSON.stringify({ big }),
      error: 'Error: boom\n    at handler (x.js:1:1)',
      dispatchedAt: NOW + 3,
      finishedAt: NOW + 9,
      updatedAt: NOW + 9,
    });
    await repo.insert(run);
  });

  it("listRuns reads a page's list columns only: not a run's params, result, flow params or parent results (up to 64 KB each)", async () => {
    const [listed, ...rest] = await listRuns(db.dataSource.manager, 'acme', {}, { after: null, limit: 20 });
    expect(rest).toEqual([]);
    expect(readColumns(listed)).toEqual([...RUN_LIST_COLUMNS].sort());
    expect(listed).toMatchObject({ id: run.id, taskId: run.taskId, state: 'FAILED', error: run.error, scheduledAt: NOW, dispatchedAt: NOW + 3, finishedAt: NOW + 9 });
  });

  it("findChangedRuns (a live page's reads, every 250 ms) reads the list columns only", async () => {
    const { going, ended } = await findChangedRuns(db.dataSource.manager, { tenantId: 'acme', engineGroup: 'default', since: NOW, endedSince: NOW, limit: 10 });
    expect(going).toEqual([]);
    expect(ended.map(readColumns)).toEqual([[...RUN_LIST_COLUMNS].sort()]);
    expect(ended[0]).toMatchObject({ id: run.id, state: 'FAILED', finishedAt: NOW + 9 });
  });
});
