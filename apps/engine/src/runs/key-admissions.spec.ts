import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '@baton/domain';
import { claimNamedRuns } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { usePacketLog } from '../../../../test/support/packets';
import { ClaimSignal } from '../common/claim-signal';
import { WokenRows } from '../common/woken-rows';
import { claimSide, insertRun, insertTask, runsOf, T0, testConfig } from '../testing/engine-test-kit';
import type { CancelledRuns } from '../wakeups/cancelled-runs';
import { KeyAdmissions } from './key-admissions';

/**
 * A key's runs admitted at their claim, and its places given back (KeyAdmissions.release): the
 * oldest held runs of the key, as many as its limit leaves room for, back PENDING and claimed at
 * once; on MariaDB an admission by a claim of its own in 2 round trips, a release in 3.
 */
async function heldKey(ds: Parameters<typeof insertTask>[0], limit: number, going: number, held: number) {
  const taskId = await insertTask(ds, { trigger: { kind: 'MANUAL' } });
  await ds.query('UPDATE tasks SET key_concurrency = ? WHERE id = ?', [JSON.stringify({ key: 'customerId', limit, onLimit: 'QUEUE' }), taskId]);
  const ref = { tenantId: 'acme', scope: `t:${taskId}`, key: 'c1' };
  for (let i = 0; i < going; i++) await insertRun(ds, { taskId, state: 'DISPATCHED', runKey: ref.key, keyScope: ref.scope });
  const heldIds: number[] = [];
  for (let i = 0; i < held; i++) heldIds.push(await insertRun(ds, { taskId, state: 'HELD', runKey: ref.key, keyScope: ref.scope }));
  return { taskId, ref, heldIds };
}

function admissions(ds: Parameters<typeof insertTask>[0]) {
  const config = testConfig();
  const signal = new ClaimSignal(config, new ManualClock(T0));
  const woken: Array<{ tenantId: string; runIds?: readonly number[] }> = [];
  signal.onDue((tenantId, runIds) => woken.push({ tenantId, runIds }));
  const rows = new WokenRows(new ManualClock(T0));
  const keys = new KeyAdmissions(ds, config, new ManualClock(T0), signal, {} as CancelledRuns, rows);
  return { keys, woken, rows };
}

describe.each(TEST_DATABASES)('a key\'s places given back (%s)', (kind) => {
  const db = useTestDatabase(kind);
  beforeEach(() => db.clear());

  it('releases the oldest held runs the limit has room for, and wakes a claim naming them, their rows left for it', async () => {
    const { taskId, ref, heldIds } = await heldKey(db.dataSource, 3, 1, 4);
    const { keys, woken, rows } = admissions(db.dataSource);
    expect(await keys.release(ref)).toBe(2);
    const runs = await runsOf(db.dataSource, taskId);
    expect(runs.filter((r) => r.state === 'PENDING').map((r) => r.id)).toEqual(heldIds.slice(0, 2));
    expect(runs.filter((r) => r.state === 'HELD').map((r) => r.id)).toEqual(heldIds.slice(2));
    expect(woken).toEqual([{ tenantId: 'acme', runIds: heldIds.slice(0, 2) }]);
    // The claim takes them as committed: admitted to their key, their lateness counted from the release.
    const { given, missing } = rows.take('acme', heldIds.slice(0, 3));
    expect(missing).toEqual([heldIds[2]]);
    expect(given.map(({ run, task }) => [run.id, run.runKey, run.lateFrom, task?.id])).toEqual(heldIds.slice(0, 2).map((id) => [id, 'c1', T0, taskId]));
  });

  it('releases nothing while the key is full, and every held run once its task has no bound any more', async () => {
    const { taskId, ref, heldIds } = await heldKey(db.dataSource, 1, 1, 3);
    const { keys } = admissions(db.dataSource);
    expect(await keys.release(ref)).toBe(0);
    await db.dataSource.query('UPDATE tasks SET key_concurrency = NULL WHERE id = ?', [taskId]);
    expect(await keys.release(ref)).toBe(3);
    expect((await runsOf(db.dataSource, taskId)).filter((r) => r.state === 'PENDING').map((r) => r.id)).toEqual(heldIds);
  });
});

describe('a key\'s places given back on MariaDB, counted in packets', () => {
  const db = useTestDatabase('mysql');
  beforeEach(() => db.clear());
  const log = usePacketLog(db);

  it("sends the key's lock, its count, its first held runs and its task's bound in one packet: 3 round trips with the UPDATE and the COMMIT (the released rows with it), not 7", async () => {
    const { taskId, ref } = await heldKey(db.dataSource, 1, 0, 2);
    const { keys } = admissions(db.dataSource);
    log.clear();
    expect(await keys.release(ref)).toBe(1);
    expect(log.packets).toEqual([
      expect.stringMatching(/^SET TRANSACTION ISOLATION LEVEL READ COMMITTED;\nSTART TRANSACTION;\nINSERT INTO run_keys .*;\nSELECT .* FROM run_keys .* FOR UPDATE;\nSELECT COUNT\(\*\) .*;\nSELECT id, task_id FROM runs\s.*;\nSELECT id, key_concurrency FROM tasks .*$/s),
      expect.stringMatching(/^UPDATE runs SET state = 'PENDING'/),
      expect.stringMatching(/^SELECT r\.id, .* FROM runs r LEFT JOIN tasks t .*;\nCOMMIT$/s),
    ]);
    expect((await runsOf(db.dataSource, taskId)).map((r) => r.state)).toEqual(['PENDING', 'HELD']);
  });
});

describe('a key\'s runs admitted at their claim on MariaDB, counted in packets', () => {
  const db = useTestDatabase('mysql');
  beforeEach(() => db.clear());
  const log = usePacketLog(db);

  it("sends the key's lock and its count in one packet, the admission's writes with the COMMIT: 2 round trips, not 4", async () => {
    const { taskId, ref } = await heldKey(db.dataSource, 1, 0, 0);
    const ids = [await insertRun(db.dataSource, { taskId, params: { customerId: ref.key } }), await insertRun(db.dataSource, { taskId, params: { customerId: ref.key } })];
    const { keys } = admissions(db.dataSource);
    const claimed = await claimNamedRuns(db.dataSource.manager, { ids, tenantId: 'acme', engineGroup: 'default', dueBefore: T0, owner: testConfig().nodeId, leaseUntil: T0 + 15_000, now: T0 });
    log.clear();
    const going = await keys.admit(db.dataSource.manager, claimed, T0);
    expect(going.map((c) => c.run.id)).toEqual([ids[0]]);
    expect(log.packets).toEqual([
      expect.stringMatching(/^SET TRANSACTION ISOLATION LEVEL READ COMMITTED;\nSTART TRANSACTION;\nINSERT INTO run_keys .*;\nSELECT .* FROM run_keys .* FOR UPDATE;\nSELECT COUNT\(\*\) .*$/s),
      expect.stringMatching(/^UPDATE runs SET run_key = .*;\nUPDATE runs SET state = 'HELD'.*;\nCOMMIT$/s),
    ]);
    expect((await runsOf(db.dataSource, taskId)).map((r) => [r.state, r.runKey])).toEqual([['CLAIMED', 'c1'], ['HELD', 'c1']]);
  });
});

describe("a wake-up's keyed runs claimed and admitted together on MariaDB, counted in packets", () => {
  const db = useTestDatabase('mysql');
  beforeEach(() => db.clear());
  const log = usePacketLog(db);

  it("claims them in the packet of the key's lock and count, the admission's writes with the COMMIT: 2 round trips, not an autocommitted claim, its read back and 2 more", async () => {
    const { taskId, ref } = await heldKey(db.dataSource, 1, 0, 0);
    const ids = [await insertRun(db.dataSource, { taskId, params: { customerId: ref.key } }), await insertRun(db.dataSource, { taskId, params: { customerId: ref.key } })];
    const { claims } = claimSide(db.dataSource, testConfig());
    const named = { ids, tenantId: 'acme', engineGroup: 'default' };
    const read = await claims.readNamed(db.dataSource.manager, named, { now: T0 });
    log.clear();
    const going = await claims.claimNamed(db.dataSource.manager, { ...named, ids: read.rest, unadmitted: read.unadmitted }, { dueBefore: T0, now: T0 });
    expect(going.map((r) => r.runId)).toEqual([ids[0]]);
    expect(log.packets).toEqual([
      expect.stringMatching(/^SET TRANSACTION ISOLATION LEVEL READ COMMITTED;\nSTART TRANSACTION;\nUPDATE runs SET state = 'CLAIMED'.* run_key IS NULL\s+AND due_at = \?;\nINSERT INTO run_keys .*;\nSELECT .* FROM run_keys .* FOR UPDATE;\nSELECT COUNT\(\*\) .*$/s),
      expect.stringMatching(/^UPDATE runs SET run_key = .*;\nUPDATE runs SET state = 'HELD'.*;\nCOMMIT$/s),
    ]);
    expect((await runsOf(db.dataSource, taskId)).map((r) => [r.state, r.runKey])).toEqual([['CLAIMED', 'c1'], ['HELD', 'c1']]);
  });
});
