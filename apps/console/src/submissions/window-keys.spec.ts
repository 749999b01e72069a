import { beforeEach, describe, expect, it } from 'vitest';
import { inTransaction, RunEntity, SubmissionKeyEntity } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { insertTask, pendingRunRow, seedTenant } from '../../../../test/cluster/support/seed';
import { errorBody } from '@baton/protocol';
import type { SubmissionOutcome } from './submission';
import { claimWindowKeys } from './window-keys';

const NOW = 1_790_000_000_000;

/**
 * The idempotency keys of submissions to windowed tasks against the database, on SQLite and
 * MariaDB: a key is taken once, its repeats answer what the first got, and — the point of keeping
 * them as rows — transactions taking one key at once (several consoles) let exactly one take it;
 * the others wait for its commit and answer its run.
 */
describe.each(TEST_DATABASES)('window keys on %s', (kind) => {
  const db = useTestDatabase(kind);
  let taskId: number;
  let run: RunEntity;

  beforeEach(async () => {
    await db.clear();
    const tenant = await seedTenant(db.dataSource, { id: 'acme', engineGroup: 'default' });
    taskId = await insertTask(db.dataSource, tenant, { name: 'sync', trigger: { kind: 'MANUAL' } });
    run = await db.dataSource.getRepository(RunEntity).save(pendingRunRow(tenant, taskId, NOW, 'w:window'));
  });

  /** One transaction submitting `fireKeys`: the first of a key not seen before gets `got` (a run, or a drop). */
  const submit = (fireKeys: string[], got: SubmissionOutcome) =>
    inTransaction(db.dataSource, async (em) => {
      const keys = await claimWindowKeys(em, 'acme', fireKeys.map((fireKey, at) => ({ at, taskId, fireKey })), NOW);
      const outcomes: SubmissionOutcome[] = fireKeys.map((_, at) => (keys.takes(at) ? got : { status: 400, error: errorBody(400, { message: 'unset' }) }));
      await keys.settle(em, outcomes, () => 'sync');
      return outcomes.map((o) => ('run' in o ? [o.status, o.run.id] : [o.status]));
    });
  const opened: SubmissionOutcome = { status: 201, get run() { return run; }, taskName: 'sync' };
  const dropped: SubmissionOutcome = { status: 409, error: errorBody(409, { message: 'Throttled' }) };

  it('takes a key once: its repeats, in the batch and later, answer its run (200); keyless submissions pass; a drop stays a drop', async () => {
    expect(await submit(['k:a', 'k:a', 'm:1', 'm:2'], opened)).toEqual([[201, run.id], [200, run.id], [201, run.id], [201, run.id]]);
    expect(await submit(['k:a'], opened)).toEqual([[200, run.id]]);
    expect(await submit(['e:b'], dropped)).toEqual([[409]]);
    const again = await submit(['e:b'], opened);
    expect(again).toEqual([[409]]);
    const stored = await db.dataSource.getRepository(SubmissionKeyEntity).find({ order: { fireKey: 'ASC' } });
    expect(stored.map((k) => [k.fireKey, k.runId, k.tenantId, k.createdAt])).toEqual([['e:b', null, 'acme', NOW], ['k:a', run.id, 'acme', NOW]]);
  });

  it('takes a key afresh when the run it named is gone (a task keeping runs shorter than its tenant keeps keys)', async () => {
    await submit(['k:a'], opened);
    await db.dataSource.getRepository(RunEntity).delete({ id: run.id });
    run = await db.dataSource.getRepository(RunEntity).save(pendingRunRow({ id: 'acme', engineGroup: 'default' }, taskId, NOW, 'w:next'));
    expect(await submit(['k:a'], opened)).toEqual([[201, run.id]]);
  });

  it('concurrent transactions with one key (several consoles): exactly one takes it, the others answer its run', { timeout: 60_000 }, async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => submit(['k:same'], opened)));
    expect(answers.map(([a]) => a[0]).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(answers.map(([a]) => a[1]))).toEqual(new Set([run.id]));
  });
});
