import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '@baton/domain';
import { inTransaction, lockSubmittedTasks, markEngineNodeDown, openDatabase, registerEngineNode, RunEntity } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { CuttingProxy } from '../testing/cutting-proxy';
import { carriedRunRow, claimSide, ensureTenant, FakeDueQueue, insertUpExecutor, insertRun, insertTask, runsOf, T0, testConfig } from '../testing/engine-test-kit';
import { MIN_TENANT_HELD, TASK_OVERDRAFT, TENANTS_PER_TURN } from './claim-turn';
import { KeyAdmissions } from '../runs/key-admissions';
import { NAMED_AHEAD_MS, RunClaims } from '../runs/run-claims';
import { ClaimTenants } from './claim-tenants';
import { BUDGETS_KEEP_MS, UNCLAIMED_LOSS_MEMORY_MS, WOKEN_RUNS_GRACE_MS } from './claimer.service';

/** vi.waitFor's default (1 s) is a guess a loaded machine can miss: the condition decides, this only bounds a hang. */
const SLOW_MACHINE = { timeout: 10_000 };

describe.each(TEST_DATABASES)('claimer on %s', (kind) => {
  const db = useTestDatabase(kind);
  let clock: ManualClock;
  let task: number;
  beforeEach(async () => {
    await db.clear();
    clock = new ManualClock(T0);
    task = await insertTask(db.dataSource, {
      trigger: { kind: 'MANUAL' },
      name: 'nightly',
      executorApp: 'reports',
      handler: 'build',
      timeoutMs: 60_000,
      startDeadlineMs: 3000,
      concurrencyPolicy: 'FORBID',
      retry: { maxAttempts: 3, backoffBaseMs: 500, backoffMaxMs: 8000, jitter: 0.25 },
    });
  });
  const side = (overrides = {}) => claimSide(db.dataSource, testConfig({ leaseMs: 15_000, lookAheadMs: 2000, ...overrides }), clock);

  it('has the queue read the routing table before a claim (whether runs may go ahead), not on a turn with nothing to claim', async () => {
    const { claimer, queue } = side();
    await claimer.claimOnce();
    expect(queue.heldAtRoutingRefresh).toBe(-1);
    await insertRun(db.dataSource, { taskId: task, dueAt: T0 + 1000 });
    expect((await claimer.claimOnce()).claimed).toBe(1);
    expect(queue.heldAtRoutingRefresh).toBe(0); // before the hand-over
  });

  it('claims a debounced or throttled key\'s COALESCING run once due, never ahead within the look-ahead (its window is still open)', async () => {
    const due = await insertRun(db.dataSource, { taskId: task, dueAt: T0, state: 'COALESCING' });
    const open = await insertRun(db.dataSource, { taskId: task, dueAt: T0 + 1, state: 'COALESCING' });
    const { claimer, queue } = side();
    expect((await claimer.claimOnce()).claimed).toBe(1);
    expect(queue.runs.map((r) => r.runId)).toEqual([due]);
    expect((await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id: open })).state).toBe('COALESCING');
    clock.set(T0 + 1);
    expect((await claimer.claimOnce()).claimed).toBe(1);
    expect(queue.runs.map((r) => r.runId)).toEqual([due, open]);
  });

  it('claims due PENDING and RETRY_WAIT runs of its groups, earliest first, higher priority first, and hands them over', async () => {
    const late = await insertRun(db.dataSource, { taskId: task, dueAt: T0 - 5000, params: { x: 1 } });
    const low = await insertRun(db.dataSource, { taskId: task, dueAt: T0 + 1000, priority: 0 });
    const high = await insertRun(db.dataSource, { taskId: task, dueAt: T0 + 1000, priority: 9 });
    const retry = await insertRun(db.dataSource, { taskId: task, dueAt: T0 + 500, state: 'RETRY_WAIT', attempt: 2, executorId: 4 });
    const edge = await insertRun(db.dataSource, { taskId: task, dueAt: T0 + 2000 }); // look-ahead is inclusive
    // Not for it: beyond the look-ahead, another group, not claimable states.
    await insertRun(db.dataSource, { taskId: task, dueAt: T0 + 2001 });
    await insertRun(db.dataSource, { taskId: task, engineGroup: 'other' });
    await insertRun(db.dataSource, { taskId: task, state: 'CLAIMED', claimedBy: 'engine-z', leaseUntil: T0 + 9000 });
    await insertRun(db.dataSource, { taskId: task, state: 'SUCCEEDED' });
    const { claimer, queue, metrics } = side();

    expect(await claimer.claimOnce()).toEqual({ claimed: 5, full: false, saturated: false });

    expect(queue.runs.map((r) => r.runId)).toEqual([late, retry, high, low, edge]);
    expect(queue.runs[0]).toEqual({
      runId: late,
      tenantId: 'acme',
      taskId: task,
      taskName: 'nightly',
      engineGroup: 'default',
      attempt: 1,
      priority: 0,
      params: { x: 1 },
      parentResults: null, // not a child of a flow
      flowParams: null,
      scheduledAt: T0 - 5000,
      dueAt: T0 - 5000,
      instant: T0 - 5000, // never deferred: its due time
      lateFrom: T0 - 5000, // never held back by its keys: its instant
      leaseUntil: T0 + 20_000, // the lease and one renewal period (run/lease.ts)
      flowId: late, // a root run without flow_id is its own flow
      executorApp: 'reports',
      handler: 'build',
      timeoutMs: 60_000,
      startDeadlineMs: 3000,
      concurrencyPolicy: 'FORBID',
      retry: { maxAttempts: 3, backoffBaseMs: 500, backoffMaxMs: 8000, jitter: 0.25 },
      fanOut: { mode: 'SINGLE', shards: null, failWhen: 'ANY_SHARD_FAILS' },
      shard: null, // not a shard of a fan-out run
      executorId: null,
      traceParent: null, // not traced
      cause: 'SCHEDULE',
      alarmTypes: expect.arrayContaining(['FAILED', 'TIMEOUT']), // the task's
      alarmSilenceMs: 60_000, // the task's (the tasks table's default)
      followUps: { children: false, fixedDelay: false },
      keyed: false,
    });
    expect(queue.runs[1]).toMatchObject({ attempt: 2, executorId: 4 }); // attempt is the retry path's business
    const rows = await db.dataSource.getRepository(RunEntity).findBy({ claimedBy: 'engine-a' });
    expect(rows.map((r) => r.id).sort((a, b) => a - b)).toEqual([late, low, high, retry, edge].sort((a, b) => a - b));
    expect(rows.every((r) => r.state === 'CLAIMED' && r.leaseUntil === T0 + 20_000 && r.updatedAt === T0)).toBe(true);
    expect(await metrics.registry.getSingleMetricAsString('baton_engine_claim_batch_size')).toMatch(/claim_batch_size_sum\{kind="runs"\} 5/);
    expect(await metrics.registry.getSingleMetricAsString('baton_engine_claim_seconds')).toMatch(/claim_seconds_count\{kind="runs"\} 1$/m);

    expect((await claimer.claimOnce()).claimed).toBe(0); // nothing claimed twice
  });

  it('claims at most claimBatch, says when the batch was full, and stops at maxHeld', async () => {
    for (let i = 0; i < 7; i++) await insertRun(db.dataSource, { taskId: task, dueAt: T0 + i });
    const { claimer, queue } = side({ claimBatch: 3, maxHeld: 5 });
    expect(await claimer.claimOnce()).toEqual({ claimed: 3, full: true, saturated: false });
    expect(await claimer.claimOnce()).toEqual({ claimed: 2, full: true, saturated: false }); // room left: 5 − 3
    expect(await claimer.claimOnce()).toEqual({ claimed: 0, full: false, saturated: true });
    queue.drain();
    expect(await claimer.claimOnce()).toEqual({ claimed: 2, full: false, saturated: false });
  });

  const executorUp = (tenantId: string, room: number) => insertUpExecutor(db.dataSource, tenantId, room);

  it('with another live engine in its group, holds no more than its share of the tenant’s budget; the rest waits in the database', async () => {
    await executorUp('acme', 20); // budget: 2 × 20 places, ⌈÷ 2 engines⌉ = 20 each
    for (let i = 0; i < 60; i++) await insertRun(db.dataSource, { taskId: task, dueAt: T0 + i });
    const up = (id: string) =>
      inTransaction(db.dataSource, (em) =>
        registerEngineNode(em, { id, groups: ['default'], host: 'h', pid: 1, url: `http://${id}`, slots: 64, startedAt: T0, heartbeatAt: T0 }),
      );
    await up('engine-a');
    await up('engine-b');
    const a = side();
    const b = side({ nodeId: 'engine-b' });
    await a.peers.refresh();
    await b.peers.refresh();
    expect(a.peers.sharing()).toBe(2);
    expect(await a.claimer.claimOnce()).toMatchObject({ claimed: 20 });
    expect(await a.claimer.claimOnce()).toMatchObject({ claimed: 0 }); // its share is held
    expect(await b.claimer.claimOnce()).toMatchObject({ claimed: 20 });
    expect((await runsOf(db.dataSource)).filter((r) => r.state === 'PENDING')).toHaveLength(20);
    a.queue.drain(); // sent: room again
    expect(await a.claimer.claimOnce()).toMatchObject({ claimed: 20 });
  });

  it('a burst of one tenant is split between the group’s live engines, not taken by whichever polls first', async () => {
    await executorUp('acme', 10_000); // room for everything: only the split limits
    for (let i = 0; i < 200; i++) await insertRun(db.dataSource, { taskId: task, dueAt: T0 + i });
    for (const id of ['engine-a', 'engine-b']) {
      await inTransaction(db.dataSource, (em) =>
        registerEngineNode(em, { id, groups: ['default'], host: 'h', pid: 1, url: `http://${id}`, slots: 64, startedAt: T0, heartbeatAt: T0 }),
      );
    }
    const a = side();
    const b = side({ nodeId: 'engine-b' });
    await a.peers.refresh();
    await b.peers.refresh();
    expect(await a.claimer.claimOnce()).toMatchObject({ claimed: 100 }); // ⌈200 ÷ 2⌉
    expect(await a.claimer.claimOnce()).toEqual({ claimed: 0, full: false, saturated: false }); // its half is held: no spinning
    expect(await b.claimer.claimOnce()).toMatchObject({ claimed: 100 }); // 100 pending + 100 claimed by a
  });

  it('a debounce window due beside a peer is claimed, though the tenant has nothing else due (it counts in the backlog split)', async () => {
    await executorUp('acme', 10_000); // room enough that the tenant's allotment is split with the peer
    for (const id of ['engine-a', 'engine-b']) {
      await inTransaction(db.dataSource, (em) =>
        registerEngineNode(em, { id, groups: ['default'], host: 'h', pid: 1, url: `http://${id}`, slots: 64, startedAt: T0, heartbeatAt: T0 }),
      );
    }
    const a = side();
    await a.peers.refresh();
    const windowRun = await insertRun(db.dataSource, { taskId: task, state: 'COALESCING', dueAt: T0, fireKey: 'w:window-1' });
    expect(await a.claimer.claimOnce()).toMatchObject({ claimed: 1 });
    expect((await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id: windowRun })).state).not.toBe('COALESCING');
  });

  it('an idle turn beside a peer counts the backlog and opens no transaction; a due run is claimed by the next', async () => {
    await executorUp('acme', 10_000); // room enough that the tenant's allotment is split with the peer
    for (const id of ['engine-a', 'engine-b']) {
      await inTransaction(db.dataSource, (em) =>
        registerEngineNode(em, { id, groups: ['default'], host: 'h', pid: 1, url: `http://${id}`, slots: 64, startedAt: T0, heartbeatAt: T0 }),
      );
    }
    const a = side();
    await a.peers.refresh();
    let transactions = 0;
    const counter = { afterTransactionStart: () => void transactions++ };
    db.dataSource.subscribers.push(counter);
    try {
      expect(await a.claimer.claimOnce()).toEqual({ claimed: 0, full: false, saturated: false });
      expect(transactions).toBe(0);
      await insertRun(db.dataSource, { taskId: task, dueAt: T0 });
      expect(await a.claimer.claimOnce()).toMatchObject({ claimed: 1 });
      expect(transactions).toBe(1);
    } finally {
      db.dataSource.subscribers.splice(db.dataSource.subscribers.indexOf(counter), 1);
    }
  });

  it('an engine that dies gives its share back: once it is DOWN, the survivor’s budget is the whole tenant’s', async () => {
    await executorUp('acme', 20); // 2 × 20 places: 20 each of two engines, 40 alone
    for (let i = 0; i < 60; i++) await insertRun(db.dataSource, { taskId: task, dueAt: T0 + i });
    for (const id of ['engine-a', 'engine-b']) {
      await inTransaction(db.dataSource, (em) =>
        registerEngineNode(em, { id, groups: ['default'], host: 'h', pid: 1, url: `http://${id}`, slots: 64, startedAt: T0, heartbeatAt: T0 }),
      );
    }
    const a = side();
    await a.peers.refresh();
    expect(await a.claimer.claimOnce()).toMatchObject({ claimed: 20 });
    await inTransaction(db.dataSource, (em) => markEngineNodeDown(em, 'engine-b')); // what the takeover's winner writes
    await a.peers.refresh(); // GroupPeers re-reads engine_nodes every 0.5 s
    expect(a.peers.sharing()).toBe(1);
    expect(await a.claimer.claimOnce()).toMatchObject({ claimed: 20 });
    expect(a.queue.heldOf('acme')).toBe(40);
  });

  it('a tenant’s backlog does not delay another tenant: each is claimed from its own range, within its own budget', async () => {
    await executorUp('acme', 2); // a slow executor: 2 places
    for (let i = 0; i < 500; i++) await insertRun(db.dataSource, { taskId: task, dueAt: T0 - 60_000 + i }); // a backfill, long due
    await ensureTenant(db.dataSource, 'quiet');
    const quiet = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' }, tenantId: 'quiet' });
    const due = await insertRun(db.dataSource, { taskId: quiet, tenantId: 'quiet', dueAt: T0 });
    const { claimer, queue } = side({ claimBatch: 50 });
    await claimer.claimOnce();
    expect(queue.runs.filter((r) => r.tenantId === 'quiet').map((r) => r.runId)).toEqual([due]); // in the first turn, behind nobody
    await claimer.claimOnce();
    await claimer.claimOnce();
    expect(queue.heldOf('acme')).toBe(MIN_TENANT_HELD); // 2 × 2 places is below the floor: it keeps the floor, not the engine's 20,000
    expect((await runsOf(db.dataSource, task)).filter((r) => r.state === 'PENDING')).toHaveLength(500 - MIN_TENANT_HELD);
  });

  it('divides the engine’s held runs by the tenants’ claim shares when they all want more', async () => {
    await executorUp('acme', 10_000);
    await ensureTenant(db.dataSource, 'beta');
    await db.dataSource.query(`UPDATE tenants SET claim_share = 2 WHERE id = 'beta'`);
    await executorUp('beta', 10_000);
    const betaTask = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' }, tenantId: 'beta' });
    for (let i = 0; i < 400; i++) {
      await insertRun(db.dataSource, { taskId: task, dueAt: T0 - 1000 + i });
      await insertRun(db.dataSource, { taskId: betaTask, tenantId: 'beta', dueAt: T0 - 1000 + i });
    }
    const { claimer, queue } = side({ maxHeld: 300, claimBatch: 500 });
    for (let i = 0; i < 4; i++) await claimer.claimOnce();
    expect(queue.held).toBe(300);
    expect(queue.heldOf('beta')).toBe(200);
    expect(queue.heldOf('acme')).toBe(100);
  });

  it('with 1,000 tenants all due, a turn reads at most TENANTS_PER_TURN of them, every tenant is served, and an idle poll reads 100', async () => {
    const values: string[] = [];
    for (let i = 0; i < 1000; i++) values.push(`('t${String(i).padStart(4, '0')}', 't', 'default', 's', ${T0})`);
    await db.dataSource.query(`INSERT INTO tenants (id, name, engine_group, executor_secret, created_at) VALUES ${values.join(',')}`);
    const runs: string[] = [];
    for (let i = 0; i < 3000; i++) runs.push(`('t${String(i % 1000).padStart(4, '0')}', ${task}, 'default', 'PENDING', 'SCHEDULE', 'k:${i}', 1, 0, '{}', ${T0 - i}, ${T0 - i}, ${T0}, ${T0})`);
    await db.dataSource.query(
      `INSERT INTO runs (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at, created_at, updated_at) VALUES ${runs.join(',')}`,
    );
    const { claimer, queue } = side();
    let turns = 0;
    while (queue.runs.length < 3000 && turns < 100) {
      const before = new Set(queue.runs.map((r) => r.tenantId)).size;
      await claimer.claimOnce();
      expect(new Set(queue.runs.map((r) => r.tenantId)).size - before).toBeLessThanOrEqual(TENANTS_PER_TURN);
      turns++;
    }
    expect(new Set(queue.runs.map((r) => r.tenantId)).size).toBe(1000);
    expect(queue.runs).toHaveLength(3000);
    expect(turns).toBeLessThanOrEqual(Math.ceil(1001 / TENANTS_PER_TURN) + 1);
  });

  it('looks at its idle tenants before it claims, and reads only those with a claimable run (a retry whose backoff is over, a window due)', async () => {
    const values: string[] = [];
    for (let i = 0; i < 1000; i++) values.push(`('i${String(i).padStart(4, '0')}', 't', 'default', 's', ${T0})`);
    await db.dataSource.query(`INSERT INTO tenants (id, name, engine_group, executor_secret, created_at) VALUES ${values.join(',')}`);
    const pending = await insertRun(db.dataSource, { taskId: task, tenantId: 'i0777' });
    const retry = await insertRun(db.dataSource, { taskId: task, tenantId: 'i0901', state: 'RETRY_WAIT', dueAt: T0 - 1 });
    await insertRun(db.dataSource, { taskId: task, tenantId: 'i0902', state: 'COALESCING', dueAt: T0 + 1000 }); // its window still open
    await insertRun(db.dataSource, { taskId: task, tenantId: 'i0903', dueAt: T0 + 2001 }); // beyond the look-ahead
    const claims = vi.spyOn(RunClaims.prototype, 'claim');
    const mine = side();
    let turns = 0;
    while (mine.queue.runs.length < 2 && turns < 20) {
      await mine.claimer.claimOnce();
      turns++;
    }
    // A look at TENANTS_PER_TURN idle tenants a turn, round the list: both found within a round.
    expect(turns).toBeLessThanOrEqual(Math.ceil(1001 / TENANTS_PER_TURN));
    const ours = claims.mock.calls.filter((_, i) => claims.mock.contexts[i] === mine.claims);
    expect(ours.map(([, takes]) => takes.map((t) => t.tenantId))).toEqual([['i0777'], ['i0901']]); // in the turns whose look found them, alone
    expect(mine.queue.runs.map((r) => r.runId).sort()).toEqual([pending, retry].sort());
    claims.mockRestore();
  });

  it('moves its look at idle tenants past those it read, not past a due one the turn had no place for', async () => {
    const values: string[] = [];
    for (let i = 0; i < 250; i++) values.push(`('w${String(i).padStart(4, '0')}', 't', 'default', 's', ${T0})`);
    await db.dataSource.query(`INSERT INTO tenants (id, name, engine_group, executor_secret, created_at) VALUES ${values.join(',')}`);
    for (let i = 0; i < 250; i++) await insertRun(db.dataSource, { taskId: task, tenantId: `w${String(i).padStart(4, '0')}` });
    const { claimer, queue } = side({ claimBatch: 50 }); // a turn takes 50 runs: half the tenants its look finds due
    const read = () => [...new Set(queue.runs.map((r) => r.tenantId))].sort();
    for (let turns = 0; read().length < 100 && turns < 20; turns++) await claimer.claimOnce();
    // The due tenants the first look found and the turn had no place for come next, before the next window's.
    expect(read()).toHaveLength(100);
    expect(read()[99]).toBe('w0099');
  });

  it('cancels claimed runs whose task was deleted', async () => {
    const orphan = await insertRun(db.dataSource, { taskId: 9999 });
    const fine = await insertRun(db.dataSource, { taskId: task });
    const { claimer, queue } = side();
    await claimer.claimOnce();
    expect(queue.runs.map((r) => r.runId)).toEqual([fine]);
    expect(await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id: orphan })).toMatchObject({ state: 'CANCELLED', claimedBy: null, finishedAt: T0 });
  });

  it('claims the runs a wake-up names by id — only the signer’s, due, claimable, in its group — with their tasks, in no transaction', async () => {
    const named = await insertRun(db.dataSource, { taskId: task, params: { n: 1 } });
    const orphan = await insertRun(db.dataSource, { taskId: 9999 });
    const notNamed = await insertRun(db.dataSource, { taskId: task });
    const others = await insertRun(db.dataSource, { taskId: task, tenantId: 'beta' });
    const later = await insertRun(db.dataSource, { taskId: task, dueAt: T0 + 2001 }); // beyond the look-ahead
    const elsewhere = await insertRun(db.dataSource, { taskId: task, engineGroup: 'other' });
    const taken = await insertRun(db.dataSource, { taskId: task, state: 'CLAIMED', claimedBy: 'engine-z', leaseUntil: T0 + 9000 });
    const { signal, queue, metrics, claimer } = side();
    claimer.start(60_000); // claiming, but no poll in this test: only the wake-up claims
    signal.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds: [named, orphan, others, later, elsewhere, taken] });
    await vi.waitFor(() => expect(queue.runs.map((r) => r.runId)).toEqual([named]), SLOW_MACHINE);
    expect(queue.runs[0]).toMatchObject({ taskName: 'nightly', handler: 'build', params: { n: 1 }, flowId: named, leaseUntil: T0 + 20_000 });
    await vi.waitFor(async () => expect((await runsOf(db.dataSource)).find((r) => r.id === orphan)).toMatchObject({ state: 'CANCELLED' }), SLOW_MACHINE);
    const states = new Map((await runsOf(db.dataSource)).map((r) => [r.id, `${r.state} ${r.claimedBy ?? ''}`.trim()]));
    expect([named, notNamed, others, later, elsewhere, taken].map((id) => states.get(id))).toEqual(['CLAIMED engine-a', 'PENDING', 'PENDING', 'PENDING', 'PENDING', 'CLAIMED engine-z']);
    expect(await metrics.registry.getSingleMetricAsString('baton_engine_claim_batch_size')).toMatch(/claim_batch_size_sum\{kind="runs"\} 1/);
    expect(await metrics.registry.getSingleMetricAsString('baton_engine_claim_seconds')).toMatch(/claim_seconds_count\{kind="runs"\} 1$/m); // the named claim's
    await claimer.stop();
  });

  it('hands over a wake-up’s runs of a task with nothing to decide at a claim unclaimed, for their DISPATCHED mark to claim; the others claimed as before', async () => {
    const plain = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' }, name: 'plain', executorApp: 'reports', handler: 'build', concurrencyPolicy: 'ALLOW' });
    const now = await insertRun(db.dataSource, { taskId: plain, params: { n: 1 } });
    // Stamped by a console's clock a little ahead of this node's: unclaimed too, held until its instant like any run (the queue's business).
    const stampedAhead = await insertRun(db.dataSource, { taskId: plain, dueAt: T0 + NAMED_AHEAD_MS });
    const ahead = await insertRun(db.dataSource, { taskId: plain, dueAt: T0 + 1500 }); // due within the look-ahead, not yet
    const forbid = await insertRun(db.dataSource, { taskId: task }); // FORBID: decided at its start, from a claim
    const { signal, queue, claimer } = side();
    claimer.start(60_000);
    signal.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds: [now, stampedAhead, ahead, forbid] });
    await vi.waitFor(() => expect(queue.runs.map((r) => r.runId).sort((a, b) => a - b)).toEqual([now, stampedAhead, ahead, forbid]), SLOW_MACHINE);
    const held = new Map(queue.runs.map((r) => [r.runId, r]));
    expect(held.get(now)).toMatchObject({ unclaimed: true, params: { n: 1 }, taskName: 'plain', leaseUntil: 0 });
    expect(held.get(stampedAhead)).toMatchObject({ unclaimed: true, dueAt: T0 + NAMED_AHEAD_MS, instant: T0 + NAMED_AHEAD_MS });
    expect(held.get(ahead)!.unclaimed).toBeUndefined();
    expect(held.get(forbid)!.unclaimed).toBeUndefined();
    const states = new Map((await runsOf(db.dataSource)).map((r) => [r.id, `${r.state} ${r.claimedBy ?? ''}`.trim()]));
    expect([now, stampedAhead, ahead, forbid].map((id) => states.get(id))).toEqual(['PENDING', 'PENDING', 'CLAIMED engine-a', 'CLAIMED engine-a']);
    await claimer.stop();
  });

  it('claims a wake-up’s runs by id, none unclaimed, behind a slot’s worth of its tenant’s runs once a peer took one of its unclaimed runs first; unclaimed again when the line is short or the loss is old', async () => {
    const plain = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' }, name: 'plain', concurrencyPolicy: 'ALLOW' });
    const ids = [await insertRun(db.dataSource, { taskId: plain }), await insertRun(db.dataSource, { taskId: plain })];
    const { signal, queue, claimer, config, pace } = side();
    const wake = async (runIds: number[]) => {
      const before = queue.runs.length;
      signal.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds });
      await vi.waitFor(() => expect(queue.runs.length).toBe(before + runIds.length), SLOW_MACHINE);
      return queue.runs.slice(before).map((r) => r.unclaimed ?? false);
    };
    claimer.start(60_000);
    queue.waiting.set('acme', config.slots);
    pace.lostUnclaimed('beta', T0); // another tenant's loss does not count
    expect(await wake([ids[0]])).toEqual([true]); // a long line, but no peer took anything
    pace.lostUnclaimed('acme', T0 - UNCLAIMED_LOSS_MEMORY_MS);
    expect(await wake([ids[1]])).toEqual([false]);
    expect((await runsOf(db.dataSource, plain)).map((r) => `${r.state} ${r.claimedBy ?? ''}`.trim())).toEqual(['PENDING', 'CLAIMED engine-a']);
    const more = [await insertRun(db.dataSource, { taskId: plain }), await insertRun(db.dataSource, { taskId: plain })];
    queue.waiting.set('acme', config.slots - 1);
    expect(await wake([more[0]])).toEqual([true]); // the line is short: out before a peer's turn may take it
    queue.waiting.set('acme', config.slots);
    clock.advance(1); // the loss is now older than the memory
    expect(await wake([more[1]])).toEqual([true]);
    await claimer.stop();
  });

  it('leaves the wake-ups of a tenant whose runs here wait for its quota to a poll: a run claimed now would wait behind them', async () => {
    await insertRun(db.dataSource, { taskId: task });
    const { claimer, queue, signal } = side();
    queue.pacedTenants.add('acme');
    claimer.start(60_000);
    const turns = vi.spyOn(ClaimTenants.prototype, 'current'); // a turn starts by reading the tenants' loads
    try {
      signal.due('acme'); // a retry due at once
      await new Promise((r) => setImmediate(r)); // a kicked turn would have started by now
      expect(turns).not.toHaveBeenCalled();
      queue.pacedTenants.delete('acme'); // a token is back
      signal.due('acme');
      await vi.waitFor(() => expect(queue.heldOf('acme')).toBe(1), SLOW_MACHINE);
    } finally {
      turns.mockRestore();
      await claimer.stop();
    }
  });

  it('leaves named runs to a claim turn when the tenant has no room for them here', async () => {
    const ids: number[] = [];
    // A console's runs, just written: the turn a refused wake-up kicks takes them (the tenant is backlogged here).
    for (let i = 0; i < 3; i++) ids.push(await insertRun(db.dataSource, { taskId: task, cause: 'MANUAL' }));
    const { signal, queue, claimer } = side({ maxHeld: 2, claimBatch: 2 });
    claimer.start(60_000);
    signal.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds: ids });
    await vi.waitFor(() => expect(queue.runs).toHaveLength(2), SLOW_MACHINE); // the turn the wake-up kicked: maxHeld's worth, earliest first
    expect(queue.runs.map((r) => r.runId)).toEqual(ids.slice(0, 2));
    await claimer.stop();
  });

  it("claims by id a wake-up's run of a task holding few runs here past its tenant's full budget, at most TASK_OVERDRAFT over; a backlogged task's run waits for a turn", async () => {
    // Task `nightly`'s backlog fills the tenant's budget here (no executor: MIN_TENANT_HELD).
    for (let i = 0; i < MIN_TENANT_HELD + 4; i++) await insertRun(db.dataSource, { taskId: task, cause: 'MANUAL', dueAt: T0 - 1_000 + i });
    const { signal, queue, claimer, woken } = side({ claimBatch: 100 });
    clock.set(T0 + WOKEN_RUNS_GRACE_MS + 1);
    await claimer.claimOnce();
    expect(queue.heldOf('acme')).toBe(MIN_TENANT_HELD);
    const other = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' } });
    const carried = async (taskId: number) => {
      const runId = await insertRun(db.dataSource, { taskId, cause: 'MANUAL', dueAt: clock.now() });
      const dispatch = (await inTransaction(db.dataSource, (em) => lockSubmittedTasks(em, 'acme', [taskId]))).get(taskId)!.dispatch;
      woken.put('acme', [{ ...carriedRunRow(runId), task_id: taskId, due_at: clock.now(), ...dispatch }]);
      return runId;
    };
    claimer.start(60_000);
    try {
      const ids = [await carried(other), await carried(other)];
      signal.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: clock.now(), runIds: ids });
      await vi.waitFor(() => expect(queue.heldOfTask('acme', other)).toBe(2), SLOW_MACHINE);
      // Task `nightly` holds its budget's worth here: its run is left to a turn, which has no room either.
      const backlogged = await carried(task);
      signal.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: clock.now(), runIds: [backlogged] });
      // A third task's TASK_OVERDRAFT runs would take the tenant past its budget by more than TASK_OVERDRAFT: left to a turn too.
      const third = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' } });
      const many: number[] = [];
      for (let i = 0; i < TASK_OVERDRAFT; i++) many.push(await carried(third));
      signal.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: clock.now(), runIds: many });
      // And `other` may still take one more.
      const last = await carried(other);
      signal.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: clock.now(), runIds: [last] });
      await vi.waitFor(() => expect(queue.heldOfTask('acme', other)).toBe(3), SLOW_MACHINE);
      expect([queue.heldOfTask('acme', task), queue.heldOfTask('acme', third), queue.heldOf('acme')]).toEqual([MIN_TENANT_HELD, 0, MIN_TENANT_HELD + 3]);
    } finally {
      await claimer.stop();
    }
  });

  it('a turn leaves a console’s just-written runs (MANUAL, EVENT) to their wake-up, and takes them once WOKEN_RUNS_GRACE_MS has passed (a lost wake-up)', async () => {
    const manual = await insertRun(db.dataSource, { taskId: task, cause: 'MANUAL' });
    const event = await insertRun(db.dataSource, { taskId: task, cause: 'EVENT' });
    const scheduled = await insertRun(db.dataSource, { taskId: task });
    const { claimer, queue } = side();
    expect((await claimer.claimOnce()).claimed).toBe(1);
    expect(queue.runs.map((r) => r.runId)).toEqual([scheduled]);
    clock.set(T0 + WOKEN_RUNS_GRACE_MS + 1);
    expect((await claimer.claimOnce()).claimed).toBe(2);
    expect(queue.runs.map((r) => r.runId).sort((a, b) => a - b)).toEqual([manual, event, scheduled].sort((a, b) => a - b));
  });

  it('a wake-up naming a run not there to claim leaves the tenant’s just-written runs to the next turn, not to the grace', async () => {
    const unnamed = await insertRun(db.dataSource, { taskId: task, cause: 'MANUAL' });
    const { signal, queue, claimer } = side();
    claimer.start(60_000);
    try {
      signal.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds: [unnamed + 1_000] });
      // The clock stays within the grace: only the missed wake-up lets a turn take the run.
      await vi.waitFor(async () => {
        await claimer.claimOnce();
        expect(queue.runs.map((r) => r.runId)).toEqual([unnamed]);
      }, SLOW_MACHINE);
    } finally {
      await claimer.stop();
    }
  });

  it('claims nothing a wake-up names while it is stopped (starting, stopping, a follower)', async () => {
    const id = await insertRun(db.dataSource, { taskId: task });
    const { signal, queue } = side();
    // A named claim and a claim turn both start by reading the tenants' loads.
    const reads = vi.spyOn(ClaimTenants.prototype, 'current');
    signal.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds: [id] });
    await new Promise((r) => setImmediate(r)); // a kicked turn would have started by now (the loop runs it on setImmediate)
    const readsWhileStopped = reads.mock.calls.length;
    reads.mockRestore();
    expect(readsWhileStopped).toBe(0);
    expect(queue.runs).toHaveLength(0);
    expect((await runsOf(db.dataSource))[0].state).toBe('PENDING');
  });

  it('a run claimed before, named again in the same millisecond, is not handed over twice: each claim has a lease of its own', async () => {
    const a = await insertRun(db.dataSource, { taskId: task });
    const { queue, claimer, signal } = side();
    await claimer.claimOnce(); // a, at T0
    const c = await insertRun(db.dataSource, { taskId: task });
    claimer.start(60_000);
    signal.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds: [a, c] }); // the clock has not moved: one lease would name both
    await vi.waitFor(() => expect(queue.runs.map((r) => r.runId)).toContain(c), SLOW_MACHINE);
    await claimer.stop(); // no turn in progress, and a named claim hands its runs over in one go: a second a would be here
    expect(queue.runs.map((r) => r.runId)).toEqual([a, c]);
  });

  it('a wake-up whose key admission fails leaves its run claimable at once (its claim rolled back with the admission): the turn it kicks takes it, with no lease renewal between', async () => {
    const keyed = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' }, name: 'keyed', executorApp: 'reports', handler: 'build', concurrency: { key: 'customerId', limit: 1, onLimit: 'QUEUE' } });
    const id = await insertRun(db.dataSource, { taskId: keyed, cause: 'MANUAL', params: { customerId: 'c1' } });
    const { signal, queue, claimer } = side();
    const admit = vi.spyOn(KeyAdmissions.prototype, 'admit').mockRejectedValueOnce(new Error('Deadlock found when trying to get lock'));
    try {
      claimer.start(60_000); // no poll in this test: the wake-up, and the turn its failure kicks
      signal.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds: [id] });
      await vi.waitFor(() => expect(queue.runs.map((r) => r.runId)).toEqual([id]), SLOW_MACHINE);
      expect(admit).toHaveBeenCalledTimes(2); // the wake-up's, which failed, and the turn's
      expect((await runsOf(db.dataSource))[0]).toMatchObject({ state: 'CLAIMED', claimedBy: 'engine-a', runKey: 'c1' });
    } finally {
      admit.mockRestore();
      await claimer.stop();
    }
  });

  it('admits a key’s runs of wake-up after wake-up in the order the wake-ups came, the first one’s reads however slow: the older runs, the newer waits HELD', async () => {
    const keyed = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' }, name: 'keyed', executorApp: 'reports', handler: 'build', concurrency: { key: 'customerId', limit: 1, onLimit: 'QUEUE' } });
    const older = await insertRun(db.dataSource, { taskId: keyed, cause: 'MANUAL', params: { customerId: 'c1' } });
    const newer = await insertRun(db.dataSource, { taskId: keyed, cause: 'MANUAL', params: { customerId: 'c1' } });
    const { signal, queue, claimer } = side();
    // The first wake-up's read waits until the second one's read is done: side by side, the second
    // one's claim would take the key first.
    let secondRead!: () => void;
    const secondReadDone = new Promise<void>((resolve) => (secondRead = resolve));
    const read = RunClaims.prototype.readNamed;
    const reads = vi.spyOn(RunClaims.prototype, 'readNamed').mockImplementation(async function (this: RunClaims, ...args) {
      if (args[1].ids.includes(older)) await secondReadDone;
      try {
        return await read.apply(this, args);
      } finally {
        if (args[1].ids.includes(newer)) secondRead();
      }
    });
    try {
      claimer.start(60_000); // no poll in this test: only the wake-ups claim
      signal.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds: [older] });
      signal.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds: [newer] });
      await vi.waitFor(async () => expect((await runsOf(db.dataSource)).find((r) => r.id === newer)?.state).toBe('HELD'), SLOW_MACHINE);
      await vi.waitFor(() => expect(queue.runs.map((r) => r.runId)).toEqual([older]), SLOW_MACHINE);
    } finally {
      reads.mockRestore();
      await claimer.stop();
    }
  });

  it('leaves a wake-up’s keyed runs to the turn owed to older ones it had no room for: the turn admits the oldest, the newer waits HELD', async () => {
    const keyed = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' }, name: 'keyed', executorApp: 'reports', handler: 'build', concurrency: { key: 'customerId', limit: 1, onLimit: 'QUEUE' } });
    const { signal, queue, claimer } = side({ maxHeld: 2, claimBatch: 2 });
    for (let i = 0; i < 2; i++) await insertRun(db.dataSource, { taskId: task });
    expect((await claimer.claimOnce()).claimed).toBe(2); // the node is full
    const older = await insertRun(db.dataSource, { taskId: keyed, cause: 'MANUAL', params: { customerId: 'c1' } });
    const newer = await insertRun(db.dataSource, { taskId: keyed, cause: 'MANUAL', params: { customerId: 'c1' } });
    const turns = vi.spyOn(claimer, 'claimOnce');
    try {
      claimer.start(60_000); // no poll in this test: the wake-ups, and the turns they kick
      signal.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds: [older] }); // no room: left to a turn, which has none either
      await vi.waitFor(() => expect(turns).toHaveBeenCalled(), SLOW_MACHINE);
      queue.drain(); // room again, before that turn comes back
      signal.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds: [newer] });
      await vi.waitFor(async () => expect((await runsOf(db.dataSource)).find((r) => r.id === newer)?.state).toBe('HELD'), SLOW_MACHINE);
      expect(queue.runs.map((r) => r.runId)).toEqual([older]);
    } finally {
      turns.mockRestore();
      await claimer.stop();
    }
  });

  it('hands a key’s released run (admitted already) over unclaimed, without waiting for a claim of the tenant that admits: a flooded key’s hand-overs stand in front of nobody', async () => {
    const keyed = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' }, name: 'keyed', executorApp: 'reports', handler: 'build', concurrency: { key: 'customerId', limit: 1, onLimit: 'QUEUE' } });
    const admitting = await insertRun(db.dataSource, { taskId: keyed, cause: 'MANUAL', params: { customerId: 'c1' } });
    const released = await insertRun(db.dataSource, { taskId: keyed, params: { customerId: 'hot' }, runKey: 'hot', keyScope: `t:${keyed}` });
    const { signal, queue, claimer } = side();
    let letFirstRead!: () => void;
    const firstRead = new Promise<void>((resolve) => (letFirstRead = resolve));
    const read = RunClaims.prototype.readNamed;
    const reads = vi.spyOn(RunClaims.prototype, 'readNamed').mockImplementation(async function (this: RunClaims, ...args) {
      if (args[1].ids.includes(admitting)) await firstRead;
      return read.apply(this, args);
    });
    try {
      claimer.start(60_000);
      signal.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds: [admitting] }); // its read held back: it stays in line
      signal.due('acme', [released]); // the key's release names the run it let go
      await vi.waitFor(() => expect(queue.runs.map((r) => r.runId)).toEqual([released]), SLOW_MACHINE);
      expect(queue.runs[0]).toMatchObject({ unclaimed: true, keyed: true }); // its DISPATCHED mark claims it: nothing is left to decide
      letFirstRead();
      await vi.waitFor(() => expect(queue.runs.map((r) => r.runId)).toEqual([released, admitting]), SLOW_MACHINE);
    } finally {
      letFirstRead();
      reads.mockRestore();
      await claimer.stop();
    }
  });

  it('works out the tenants’ budgets once per BUDGETS_KEEP_MS for the wake-ups, not once each: a pass over every tenant of the group', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push(await insertRun(db.dataSource, { taskId: task }));
    const { signal, queue, claimer } = side();
    claimer.start(60_000); // no poll in this test: only the wake-ups claim
    const reads = vi.spyOn(ClaimTenants.prototype, 'current'); // the budgets start by reading the tenants' loads
    try {
      signal.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds: [ids[0]] });
      await vi.waitFor(() => expect(queue.runs).toHaveLength(1), SLOW_MACHINE);
      clock.set(T0 + BUDGETS_KEEP_MS - 1);
      signal.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds: [ids[1]] });
      await vi.waitFor(() => expect(queue.runs).toHaveLength(2), SLOW_MACHINE);
      expect(reads).toHaveBeenCalledTimes(1);
      clock.set(T0 + BUDGETS_KEEP_MS);
      signal.wake({ tenantId: 'acme', engineGroup: 'default', dueAt: T0, runIds: [ids[2]] });
      await vi.waitFor(() => expect(queue.runs).toHaveLength(3), SLOW_MACHINE);
      expect(reads).toHaveBeenCalledTimes(2);
    } finally {
      reads.mockRestore();
      await claimer.stop();
    }
  });

  it('releases what the DueQueue refuses instead of holding it forever', async () => {
    const id = await insertRun(db.dataSource, { taskId: task });
    const { claimer, queue } = side();
    queue.refuse = true;
    await claimer.claimOnce();
    expect(await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id })).toMatchObject({ state: 'PENDING', claimedBy: null, leaseUntil: null });
  });

  it('renews the leases of everything it holds, and only that', async () => {
    const claimed = await insertRun(db.dataSource, { taskId: task, state: 'CLAIMED', claimedBy: 'engine-a', leaseUntil: T0 + 100 });
    const dispatched = await insertRun(db.dataSource, { taskId: task, state: 'DISPATCHED', claimedBy: 'engine-a', leaseUntil: T0 + 100, executorId: 1 });
    const accepted = await insertRun(db.dataSource, { taskId: task, state: 'ACCEPTED', claimedBy: 'engine-a', leaseUntil: T0 + 100 });
    const others = await insertRun(db.dataSource, { taskId: task, state: 'CLAIMED', claimedBy: 'engine-b', leaseUntil: T0 + 100 });
    clock.advance(5000);
    expect(await side().leases.renewOnce()).toBe(2);
    const lease = async (id: number) => (await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id })).leaseUntil;
    expect(await lease(claimed)).toBe(T0 + 20_000);
    expect(await lease(dispatched)).toBe(T0 + 20_000);
    expect(await lease(accepted)).toBe(T0 + 100);
    expect(await lease(others)).toBe(T0 + 100);
  });

  it('leaves the lease of a run claimed since the last renewal as its claim set it, and renews it the time after', async () => {
    const id = await insertRun(db.dataSource, { taskId: task });
    const { claimer, leases } = side();
    await claimer.claimOnce();
    const lease = async () => (await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id })).leaseUntil;
    expect(await lease()).toBe(T0 + 20_000);
    clock.advance(4_000); // a renewal period is 5 s: the claim came after the last renewal
    expect(await leases.renewOnce()).toBe(1); // held, found, not rewritten
    expect(await lease()).toBe(T0 + 20_000);
    clock.advance(5_000);
    await leases.renewOnce();
    expect(await lease()).toBe(T0 + 9_000 + 15_000);
  });

  it('gives back runs it holds in the database but not in memory, at the second renewal that finds them so', async () => {
    // A claim and a DISPATCHED mark that committed while their answers were lost: rows of this node that nothing in it will send.
    const strayClaimed = await insertRun(db.dataSource, { taskId: task, state: 'CLAIMED', claimedBy: 'engine-a', leaseUntil: T0 + 100 });
    const strayDispatched = await insertRun(db.dataSource, { taskId: task, state: 'DISPATCHED', claimedBy: 'engine-a', leaseUntil: T0 + 100, executorId: 7 });
    const held = await insertRun(db.dataSource, { taskId: task, dueAt: T0 });
    const others = await insertRun(db.dataSource, { taskId: task, state: 'CLAIMED', claimedBy: 'engine-b', leaseUntil: T0 + 100 });
    const { claimer, leases, queue, metrics } = side();
    // Claimed behind the renewal's first look: still only suspected at the second.
    expect(await leases.renewOnce()).toBe(2);
    await claimer.claimOnce();
    expect(queue.runs.map((r) => r.runId)).toEqual([held]);
    const row = (id: number) => db.dataSource.getRepository(RunEntity).findOneByOrFail({ id });
    expect(await row(strayClaimed)).toMatchObject({ state: 'CLAIMED', claimedBy: 'engine-a' });

    clock.advance(5000);
    expect(await leases.renewOnce()).toBe(3);
    expect(await row(strayClaimed)).toMatchObject({ state: 'PENDING', claimedBy: null, leaseUntil: null, updatedAt: T0 + 5000 });
    expect(await row(strayDispatched)).toMatchObject({ state: 'PENDING', claimedBy: null, executorId: 7 }); // sent to the same executor again
    expect(await row(held)).toMatchObject({ state: 'CLAIMED', claimedBy: 'engine-a', leaseUntil: T0 + 20_000 });
    expect(await row(others)).toMatchObject({ state: 'CLAIMED', claimedBy: 'engine-b' });
    expect(await metrics.registry.getSingleMetricAsString('baton_engine_runs_released_total')).toMatch(/reason="STRAY",outcome="PENDING"\} 2/);

    clock.advance(5000);
    expect(await leases.renewOnce()).toBe(1);
    expect(await row(held)).toMatchObject({ state: 'CLAIMED', claimedBy: 'engine-a' }); // held in memory: never a stray
  });
});

describe('two engines claiming on mysql', () => {
  const db = useTestDatabase('mysql');

  it('get disjoint sets, and every due run is claimed exactly once', async () => {
    await db.clear(); // the block's other tests may have run first (--sequence.shuffle)
    const task = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' } });
    await insertUpExecutor(db.dataSource, 'acme', 1000);
    const values = Array.from({ length: 600 }, (_, i) => `(
      'acme', ${task}, 'default', 'PENDING', 'SCHEDULE', 's:${i}', 1, ${i % 5}, '{}', ${T0 + (i % 50)}, ${T0 + (i % 50)}, ${T0}, ${T0})`);
    await db.dataSource.query(
      `INSERT INTO runs (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at, created_at, updated_at)
       VALUES ${values.join(',')}`,
    );
    expect(await runsOf(db.dataSource)).toHaveLength(600);
    const clock = new ManualClock(T0);
    const other = await openDatabase(db.url);
    try {
      const a = claimSide(db.dataSource, testConfig({ nodeId: 'engine-a', claimBatch: 25 }), clock, new FakeDueQueue());
      const b = claimSide(other, testConfig({ nodeId: 'engine-b', claimBatch: 25 }), clock, new FakeDueQueue());
      const loop = async (s: typeof a) => {
        let idle = 0;
        while (idle < 2) idle = (await s.claimer.claimOnce()).claimed === 0 ? idle + 1 : 0;
      };
      await Promise.all([loop(a), loop(b)]);

      const idsA = a.queue.runs.map((r) => r.runId);
      const idsB = b.queue.runs.map((r) => r.runId);
      expect(idsA.length).toBeGreaterThan(0);
      expect(idsB.length).toBeGreaterThan(0);
      expect(idsA.filter((id) => idsB.includes(id))).toEqual([]);
      expect(idsA.length + idsB.length).toBe(600);
      expect(new Set([...idsA, ...idsB]).size).toBe(600);
      const rows = await runsOf(db.dataSource);
      const owner = new Map(rows.map((r) => [r.id, r.claimedBy]));
      expect(rows.every((r) => r.state === 'CLAIMED')).toBe(true);
      expect(idsA.every((id) => owner.get(id) === 'engine-a')).toBe(true);
      expect(idsB.every((id) => owner.get(id) === 'engine-b')).toBe(true);
    } finally {
      await other.destroy();
    }
  });

  it('lease renewal does not wait for a row another transaction holds: it renews the rest, and that row the next time', async () => {
    await db.clear();
    const task = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' } });
    const busy = await insertRun(db.dataSource, { taskId: task, state: 'DISPATCHED', claimedBy: 'engine-a', leaseUntil: T0 + 100, executorId: 1 });
    const free = await insertRun(db.dataSource, { taskId: task, state: 'CLAIMED', claimedBy: 'engine-a', leaseUntil: T0 + 100 });
    const clock = new ManualClock(T0);
    const queue = new FakeDueQueue();
    queue.holds = () => true; // both held in memory: no stray to give back
    const { leases } = claimSide(db.dataSource, testConfig({ nodeId: 'engine-a', leaseMs: 15_000 }), clock, queue);
    const other = await openDatabase(db.url);
    const runner = other.createQueryRunner();
    try {
      // Another transaction holds the row (as the node's own callback commit or dispatch mark would).
      await runner.startTransaction();
      await runner.query('SELECT id FROM runs WHERE id = ? FOR UPDATE', [busy]);
      // Renewed while the other transaction still holds the row: a blocking renewal would wait for
      // the lock (innodb_lock_wait_timeout: 50 s) and the test would time out. Both are found (the
      // read locks nothing); the busy one is skipped.
      expect(await leases.renewOnce()).toBe(2);
      await runner.rollbackTransaction();
      const lease = async (id: number) => (await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id })).leaseUntil;
      expect(await lease(free)).toBe(T0 + 15_000);
      expect(await lease(busy)).toBe(T0 + 100);
      clock.advance(1000);
      expect(await leases.renewOnce()).toBe(2);
      expect(await lease(busy)).toBe(T0 + 16_000);
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      await runner.release();
      await other.destroy();
    }
  });
});

describe('a claim that committed while its answer was lost (MariaDB)', () => {
  const db = useTestDatabase('mysql');
  const proxy = new CuttingProxy();
  let viaProxy: DataSource;
  beforeAll(async () => {
    viaProxy = await openDatabase(await proxy.proxying(db.url));
  });
  afterAll(async () => {
    await viaProxy?.destroy();
    await proxy.stop();
  });

  it('leaves runs the node holds in the database only; the lease renewals give them back, and they are claimed again', async () => {
    await db.clear();
    const task = await insertTask(db.dataSource, { trigger: { kind: 'MANUAL' } });
    const ids = [await insertRun(db.dataSource, { taskId: task, dueAt: T0 }), await insertRun(db.dataSource, { taskId: task, dueAt: T0 + 1 })];
    const clock = new ManualClock(T0);
    const { claimer, leases, queue } = claimSide(viaProxy, testConfig({ nodeId: 'engine-a', leaseMs: 15_000 }), clock, new FakeDueQueue());
    const states = async () => (await runsOf(db.dataSource)).map((r) => `${r.state}:${r.claimedBy}`);

    // The COMMIT statement itself (COM_QUERY, 0x03, then its text), not the SET TRANSACTION … READ COMMITTED before it.
    proxy.cut = { how: 'after-server', marker: '\u0003COMMIT' };
    await expect(claimer.claimOnce()).rejects.toThrow(/closed|lost/i);
    expect(proxy.cuts).toBe(1);
    expect(queue.runs).toEqual([]);
    expect(await states()).toEqual(['CLAIMED:engine-a', 'CLAIMED:engine-a']); // committed: nothing else would ever send them

    expect(await leases.renewOnce()).toBe(2);
    clock.advance(5_000);
    expect(await leases.renewOnce()).toBe(2);
    expect(await states()).toEqual(['PENDING:null', 'PENDING:null']);
    await claimer.claimOnce();
    expect(queue.runs.map((r) => r.runId)).toEqual(ids);
  });
});
