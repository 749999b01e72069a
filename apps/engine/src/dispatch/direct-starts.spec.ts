import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '@baton/domain';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { NodeLiveness } from '../common/node-liveness';
import { RecentCancels } from '../common/recent-cancels';
import { DispatchMarks } from '../runs/dispatch-marks';
import { DispatchSetbacks } from '../runs/dispatch-setbacks';
import { MARK_FRESH_MS } from '../runs/run-start';
import { eventually } from '../testing/eventually';
import { claimedRunOf, FakeExecutor, GROUP, NODE_ID, readRun, seedExecutor, seedRun, seedTask, seedTenant, startDispatchSide, TENANT, type DispatchSideApp, type SeededTask } from '../testing/dispatch-side-kit';
import { TenantDirectory } from '../tenants/tenant-directory';
import { DirectStartsService } from './direct-starts';
import { Dispatcher } from './dispatcher';
import { DueQueue } from './due-queue';

/**
 * Runs written already sent (DirectStarts): the console of the engine's process writes them
 * DISPATCHED to the executors `plan` names, under the engine's lease, and hands them over; the
 * engine sends them with no start write when they go there, and rewrites the row (a reroute) when
 * they go elsewhere or later. The engine runs on a ManualClock: whether a run is sent within
 * MARK_FRESH_MS of its write is the test's to say, never the machine's pace.
 */
describe.each(TEST_DATABASES)('runs written already sent on %s', (kind) => {
  const db = useTestDatabase(kind);
  let engine: DispatchSideApp;
  let executor: FakeExecutor;
  let executorId: number;
  let task: SeededTask;
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    engine = await startDispatchSide(db.dataSource, {}, { clock });
    executor = await new FakeExecutor().start();
  });
  afterAll(async () => {
    await engine?.close();
    await executor?.stop();
  });
  beforeEach(async () => {
    await db.clear();
    executor.reset();
    await seedTenant(db.dataSource);
    executorId = await seedExecutor(db.dataSource, { url: executor.url, capacity: 4 });
    await engine.refreshRegistry();
    task = await seedTask(db.dataSource, { name: 'sync-customer' });
  });
  afterEach(() => vi.restoreAllMocks());

  /** A run due now (the engine's clock) as its console writes it already sent to `to`, at `at`, handed to the engine. */
  async function writtenSent(to: number, at = clock.now()): Promise<number> {
    const now = clock.now();
    const runId = await seedRun(db.dataSource, task, { state: 'DISPATCHED', claimedBy: NODE_ID, leaseUntil: now + 15_000, executorId: to, dispatchedAt: at, deadlineAt: at + task.seed.timeoutMs, scheduledAt: now });
    engine.get(DueQueue).accept([claimedRunOf(task, runId, { executorId: to, markedAt: at, leaseUntil: now + 15_000, dueAt: now, scheduledAt: now })]);
    return runId;
  }

  /** The dispatches of a run the executor has had (its ACCEPTED mark waits for the ack hold, on the clock that does not move here). */
  const sendsOf = (runId: number) => executor.dispatches.filter((r) => r.body.runId === runId);

  function spies() {
    return { marks: vi.spyOn(engine.get(DispatchMarks), 'markDispatched'), reroutes: vi.spyOn(engine.get(DispatchSetbacks), 'reroute') };
  }

  it('goes to the executor its console named with no write of its start', async () => {
    const { marks, reroutes } = spies();
    const runId = await writtenSent(executorId);
    await eventually(() => sendsOf(runId).length === 1, 'its dispatch');
    expect((await readRun(db.dataSource, runId)).state).toBe('DISPATCHED');
    expect(marks).not.toHaveBeenCalled();
    expect(reroutes).not.toHaveBeenCalled();
  });

  it('named an executor the route does not take (not UP): its row is rerouted to the one it goes to, before it leaves', async () => {
    const { marks, reroutes } = spies();
    const runId = await writtenSent(executorId + 1000);
    await eventually(() => sendsOf(runId).length === 1, 'its dispatch');
    expect((await readRun(db.dataSource, runId)).executorId).toBe(executorId);
    expect(reroutes).toHaveBeenCalledTimes(1);
    expect(marks).not.toHaveBeenCalled();
  });

  it(`sent more than MARK_FRESH_MS (${MARK_FRESH_MS} ms) after it was written: its dispatched_at and deadline are written anew`, async () => {
    const { reroutes } = spies();
    const writtenAt = clock.now() - MARK_FRESH_MS - 1;
    const runId = await writtenSent(executorId, writtenAt);
    await eventually(() => sendsOf(runId).length === 1, 'its dispatch');
    expect(reroutes).toHaveBeenCalledTimes(1);
    expect(await readRun(db.dataSource, runId)).toMatchObject({ dispatchedAt: clock.now(), deadlineAt: clock.now() + task.seed.timeoutMs });
  });

  it('cancelled by the console before its send (its notice came): not sent', async () => {
    const runId = await seedRun(db.dataSource, task, { state: 'CANCELLED', executorId });
    engine.get(RecentCancels).add([runId]);
    const queue = engine.get(DueQueue);
    queue.accept([claimedRunOf(task, runId, { executorId, markedAt: clock.now(), dueAt: clock.now(), scheduledAt: clock.now() })]);
    await eventually(() => !queue.holds(runId), 'the run dropped');
    expect(sendsOf(runId)).toHaveLength(0);
  });

  describe('plan', () => {
    const request = () => ({ tenantId: TENANT, engineGroup: GROUP, executorApp: task.seed.executorApp, taskId: task.id, count: 3 });

    /** The node registered, the tenant and its quota read: what a running engine has before its console asks. */
    async function ready(): Promise<void> {
      engine.get(NodeLiveness).proven(clock.now());
      await engine.get(TenantDirectory).get(TENANT);
      await eventually(() => engine.get(Dispatcher).quotaKnown(TENANT), "the tenant's quota read");
    }

    it('names an executor for each run when the node is live and the app has room; none before the node is registered', async () => {
      const starts = engine.get(DirectStartsService);
      expect(starts.plan(request())).toBeNull();
      await ready();
      const plan = starts.plan(request());
      expect(plan).toMatchObject({ nodeId: NODE_ID, executorIds: [executorId, executorId, executorId] });
      expect(plan!.leaseUntil).toBeGreaterThan(clock.now());
    });

    it('none for a group it does not serve, for an app with no UP executor, or while a run of the tenant waits for room', async () => {
      await ready();
      const starts = engine.get(DirectStartsService);
      expect(starts.plan({ ...request(), engineGroup: 'elsewhere' })).toBeNull();
      expect(starts.plan({ ...request(), executorApp: 'no-such-app' })).toBeNull();
      // The executor's room (4 workers, no queue) taken by runs written sent: the next ones wait for it.
      executor.behaviour = (req) => ({ status: 202, body: { accepted: true, runId: req.body.runId, attempt: req.body.attempt, credit: 0, creditSeq: Date.now() * 1000 } });
      for (let i = 0; i < 6; i++) await writtenSent(executorId);
      await eventually(() => engine.get(DueQueue).waitingOf(TENANT) > 0, 'a run of the tenant held back');
      expect(starts.plan(request())).toBeNull();
    });
  });
});
