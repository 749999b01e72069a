import type { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '@baton/domain';
import { inTransaction, insertPlannedRuns, openDatabase, RunEntity } from '@baton/persistence';
import { useTestDatabase } from '../../../../test/support/databases';
import type { ClaimedRun } from '../common/claimed-run';
import { CuttingProxy } from '../testing/cutting-proxy';
import { testConfig } from '../testing/engine-test-kit';
import { DispatchMarks } from './dispatch-marks';

const T = 1_767_225_600_000;
const MARK = "UPDATE runs SET state = 'DISPATCHED'";

const claimed = (runId: number): ClaimedRun => ({ runId, attempt: 1, timeoutMs: 60_000 }) as ClaimedRun;

describe('DispatchMarks when a DISPATCHED mark loses its answer (MariaDB)', () => {
  const db = useTestDatabase('mysql');
  const proxy = new CuttingProxy();
  let viaProxy: DataSource;
  let marks: DispatchMarks;
  const clock = new ManualClock(T);

  beforeAll(async () => {
    viaProxy = await openDatabase(await proxy.proxying(db.url));
    marks = new DispatchMarks(viaProxy, testConfig({ nodeId: 'n1' }), clock);
  });
  afterAll(async () => {
    await viaProxy?.destroy();
    await proxy.stop();
  });
  beforeEach(() => db.clear());
  // Each test counts its own cuts: none depends on the tests run before it.
  afterEach(() => {
    proxy.cut = null;
    proxy.cuts = 0;
  });

  async function claimedRuns(n: number): Promise<number[]> {
    await inTransaction(db.dataSource, (em) =>
      insertPlannedRuns(
        em,
        Array.from({ length: n }, (_, i) => ({
          tenantId: 'acme', taskId: i + 1, engineGroup: 'default', state: 'PENDING' as const, fireKey: `s:${T}`, priority: 0,
          paramsJson: '{}', scheduledAt: T, dueAt: T, finishedAt: null, error: null,
        })),
        T,
      ),
    );
    const ids = (await db.dataSource.getRepository(RunEntity).find({ order: { id: 'ASC' } })).map((r) => r.id);
    await db.dataSource.getRepository(RunEntity).update(ids, { state: 'CLAIMED', claimedBy: 'n1', attempt: 1 });
    return ids;
  }
  const states = async () => (await db.dataSource.getRepository(RunEntity).find({ order: { id: 'ASC' } })).map((r) => r.state);

  it('a mark that committed but whose answer was lost: its runs are reported marked, to be sent', async () => {
    const ids = await claimedRuns(3);
    proxy.cut = { how: 'after-server', marker: MARK };
    const at = await Promise.all(ids.map((id) => marks.markDispatched(claimed(id), 7)));
    expect(proxy.cuts).toBe(1);
    expect(at).toEqual([T, T, T]);
    expect(await states()).toEqual(['DISPATCHED', 'DISPATCHED', 'DISPATCHED']);
  });

  it('a mark cut before the server saw it: its runs stay CLAIMED and the error reaches the dispatcher', async () => {
    const ids = await claimedRuns(2);
    proxy.cut = { how: 'before-server', marker: MARK };
    const results = await Promise.allSettled(ids.map((id) => marks.markDispatched(claimed(id), 7)));
    expect(proxy.cuts).toBe(1);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await states()).toEqual(['CLAIMED', 'CLAIMED']);
  });

  it('a run taken over while the mark had no answer is not this node’s to send', async () => {
    const ids = await claimedRuns(2);
    await db.dataSource.getRepository(RunEntity).update({ id: ids[1] }, { claimedBy: 'n2' });
    proxy.cut = { how: 'after-server', marker: MARK };
    const at = await Promise.all(ids.map((id) => marks.markDispatched(claimed(id), 7)));
    expect(at).toEqual([T, null]);
  });

  it("claims with its mark a wake-up's run due a little after this node's clock (sent ahead of its instant), at the instant this node holds it for", async () => {
    const [id] = await claimedRuns(1);
    await db.dataSource.getRepository(RunEntity).update(id, { state: 'PENDING', claimedBy: null, dueAt: T + 30 });
    const run = { ...claimed(id), tenantId: 'acme', dueAt: T + 30, unclaimed: true } as ClaimedRun;
    expect(await marks.markDispatched(run, 7)).toBe(T);
    expect(await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id })).toMatchObject({ state: 'DISPATCHED', claimedBy: 'n1', executorId: 7 });
  });
});

describe('DispatchMarks with BATON_ACK_HOLD_MS (SQLite)', () => {
  const db = useTestDatabase('sqlite');
  const clock = new ManualClock(T);
  let marks: DispatchMarks;

  beforeEach(async () => {
    await db.clear();
    marks = new DispatchMarks(db.dataSource, testConfig({ nodeId: 'n1', ackHoldMs: 250 }), clock);
    await inTransaction(db.dataSource, (em) =>
      insertPlannedRuns(
        em,
        [1, 2].map((taskId) => ({ tenantId: 'acme', taskId, engineGroup: 'default', state: 'PENDING' as const, fireKey: `s:${T}`, priority: 0, paramsJson: '{}', scheduledAt: T, dueAt: T, finishedAt: null, error: null })),
        T,
      ),
    );
    const ids = (await db.dataSource.getRepository(RunEntity).find()).map((r) => r.id);
    await db.dataSource.getRepository(RunEntity).update(ids, { state: 'DISPATCHED', claimedBy: 'n1', attempt: 1, dispatchedAt: T });
  });
  const rows = async () => (await db.dataSource.getRepository(RunEntity).find({ order: { id: 'ASC' } })).map((r) => [r.state, r.acceptedAt]);

  it('holds the marks until the hold ends, then writes them together; a run that ended meanwhile gets none', async () => {
    const [a, b] = (await db.dataSource.getRepository(RunEntity).find({ order: { id: 'ASC' } })).map((r) => r.id);
    const written = [marks.markAccepted(claimed(a), T + 1, T + 2), marks.markAccepted(claimed(b), T + 1, T + 3)];
    await db.dataSource.getRepository(RunEntity).update({ id: a }, { state: 'SUCCEEDED', finishedAt: T + 5 }); // its callback came first
    clock.advance(249);
    expect(await rows()).toEqual([['SUCCEEDED', null], ['DISPATCHED', null]]);
    clock.advance(1);
    await Promise.all(written);
    expect(await rows()).toEqual([['SUCCEEDED', null], ['ACCEPTED', T + 3]]);
  });

  it("hands a held 202 to its attempt's outcome; once settled there, no ACCEPTED mark is written for it", async () => {
    const [a, b] = (await db.dataSource.getRepository(RunEntity).find({ order: { id: 'ASC' } })).map((r) => r.id);
    const written = [marks.markAccepted(claimed(a), T + 1, T + 2), marks.markAccepted(claimed(b), T + 1, T + 3)];
    expect(marks.heldAck(a, 2)).toBeNull(); // another attempt's outcome: not this 202
    expect(marks.heldAck(a, 1)).toEqual({ sentAt: T + 1, acceptedAt: T + 2 });
    marks.settled(a, 1);
    await written[0]; // settled: its caller is answered before the hold ends
    expect(marks.heldAck(a, 1)).toBeNull();
    clock.advance(250);
    await written[1];
    expect(await rows()).toEqual([['DISPATCHED', null], ['ACCEPTED', T + 3]]);
  });

  it('writes what it holds at once when asked (shutdown)', async () => {
    const [a] = (await db.dataSource.getRepository(RunEntity).find({ order: { id: 'ASC' } })).map((r) => r.id);
    const written = marks.markAccepted(claimed(a), T + 1, T + 2);
    marks.writeHeld();
    await written;
    expect((await rows())[0]).toEqual(['ACCEPTED', T + 2]);
    clock.advance(1_000); // the hold's end, cancelled: nothing more happens
  });
});
