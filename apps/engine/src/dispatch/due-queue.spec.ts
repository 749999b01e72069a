import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '@baton/domain';
import type { ClaimedRun } from '../common/claimed-run';
import { aClaimedRun } from '../testing/claimed-run-fixture';
import { readEngineConfig } from '../config/engine-config';
import { EngineMetrics } from '../metrics/engine-metrics';
import type { Dispatcher } from './dispatcher';
import { DueQueue } from './due-queue';
import { TENANT_READ_WAIT_MS } from './dispatch-admission';
import { eventually } from '../testing/eventually';

/** A Dispatcher stand-in: records launches (and when), with settable slots and token waits. */
class StubDispatcher {
  launched: Array<{ run: ClaimedRun; at: number; onTime: boolean; sendAt?: number }> = [];
  slots = 100;
  onTimeSlots = 0;
  onTimeLeadMs = 0;
  inLane = new Set<string>();
  inLaneOf(tenantId: string): boolean {
    return this.inLane.has(tenantId);
  }
  inFlight = 0;
  /** Runs launched and not let go (holds). */
  holding = new Set<number>();
  holds(runId: number): boolean {
    return this.holding.has(runId);
  }
  /** The attempt of each run launched, by run (sends). */
  sending = new Map<number, number>();
  sends(run: ClaimedRun): boolean {
    return this.sending.get(run.runId) === run.attempt;
  }
  tokenWait: (run: ClaimedRun, ahead: number) => number = () => 0;
  private listener: () => void = () => undefined;
  get freeSlots(): number {
    return Math.max(0, this.slots - this.inFlight);
  }
  get freeOnTimeSlots(): number {
    return Math.max(0, this.slots + this.onTimeSlots - this.inFlight);
  }
  onSlotFreed(listener: () => void): void {
    this.listener = listener;
  }
  keepForLater: (run: ClaimedRun, at: number) => void = () => undefined;
  onKeepForLater(listener: (run: ClaimedRun, at: number) => void): void {
    this.keepForLater = listener;
  }
  prepare(): void {}
  /** Runs whose executors start them at their instant (sent ahead). */
  ahead = new Set<number>();
  sendsAhead(run: ClaimedRun): boolean {
    return this.ahead.has(run.runId);
  }
  shareOf(): number {
    return 1;
  }
  mayTakeSlot: (tenantId: string) => boolean = () => true;
  heldBack = 0;
  heldBackOfTask(): number {
    return 0;
  }
  heldBackOf(): number {
    return 0;
  }
  takeHeldBack(): ClaimedRun[] {
    return [];
  }
  /** Tenants whose quota this engine has not read (DispatchAdmission.quotaKnown). */
  unread = new Set<string>();
  quotaKnown(tenantId: string): boolean {
    return !this.unread.has(tenantId);
  }
  takeTokens(run: ClaimedRun, _now: number, ahead = 0): number {
    return this.tokenWait(run, ahead);
  }
  launch(run: ClaimedRun, onTime = false, sendAt?: number): void {
    this.inFlight++;
    this.holding.add(run.runId);
    this.sending.set(run.runId, run.attempt);
    if (sendAt !== undefined) this.inLane.add(run.tenantId);
    this.launched.push({ run, at: Date.now(), onTime, ...(sendAt === undefined ? {} : { sendAt }) });
  }
  release(): void {
    this.inFlight--;
    this.listener();
  }
}

function run(runId: number, dueAt: number, priority = 0): ClaimedRun {
  return aClaimedRun(runId, dueAt, { priority });
}

describe('DueQueue', () => {
  let queue: DueQueue | undefined;
  afterEach(() => queue?.drain());

  function make(stub: StubDispatcher, sendAheadMs = 2_000): DueQueue {
    queue = new DueQueue(readEngineConfig({}, { slots: 100, sendAheadMs }), systemClock, new EngineMetrics({ defaultMetrics: false }), stub as unknown as Dispatcher);
    return queue;
  }

  // Fake timers (Date included): the assertion is about the queue's logic — one timer armed for
  // the earliest due time, fired at that millisecond — not about how busy the machine is.
  it('fires each run at its due millisecond — never before — by one timer, not a poll', async () => {
    vi.useFakeTimers({ now: 1_800_000_000_000 });
    try {
      const stub = new StubDispatcher();
      const q = make(stub);
      const base = Date.now() + 80;
      const offsets = [0, 37, 110, 173, 240];
      q.accept(offsets.map((o, i) => run(i + 1, base + o)).reverse());
      expect(q.held).toBe(5);
      expect(vi.getTimerCount()).toBe(1);
      for (const [i, offset] of offsets.entries()) {
        await vi.advanceTimersByTimeAsync(base + offset - 1 - Date.now());
        expect(stub.launched, `run ${i + 1} not before its due time`).toHaveLength(i);
        await vi.advanceTimersByTimeAsync(1);
        expect(stub.launched, `run ${i + 1} at its due time`).toHaveLength(i + 1);
        expect(stub.launched[i].at).toBe(base + offset);
        expect(vi.getTimerCount()).toBeLessThanOrEqual(1);
      }
      expect(stub.launched.map((l) => l.run.runId)).toEqual([1, 2, 3, 4, 5]);
      expect(q.held).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('orders runs due at the same millisecond by priority (higher first), then first come first served', async () => {
    const stub = new StubDispatcher();
    const q = make(stub);
    const due = Date.now() + 40;
    q.accept([run(1, due, 0), run(2, due, 5), run(3, due, -1), run(4, due, 5), run(5, due + 1, 100)]);
    await eventually(() => stub.launched.length === 5, '5 launched');
    expect(stub.launched.map((l) => l.run.runId)).toEqual([2, 4, 1, 3, 5]);
  });

  it('fires runs already due at once', async () => {
    const stub = new StubDispatcher();
    const q = make(stub);
    q.accept([run(1, Date.now() - 5_000), run(2, Date.now())]);
    await eventually(() => stub.launched.length === 2, '2 launched');
    expect(stub.launched.map((l) => l.run.runId)).toEqual([1, 2]);
  });

  it('dispatches at most `slots` at once; a released slot lets the next due run go', async () => {
    vi.useFakeTimers({ now: 1_800_000_000_000 });
    try {
      const stub = new StubDispatcher();
      stub.slots = 2;
      const q = make(stub);
      const due = Date.now() + 10;
      q.accept([run(1, due), run(2, due), run(3, due), run(4, due)]);
      await vi.advanceTimersByTimeAsync(10);
      expect(stub.launched).toHaveLength(2);
      await vi.advanceTimersByTimeAsync(30);
      expect(stub.launched).toHaveLength(2);
      expect(q.held).toBe(2);
      stub.release();
      await vi.advanceTimersByTimeAsync(0);
      expect(stub.launched).toHaveLength(3);
      expect(stub.launched[2].run.runId).toBe(3);
      stub.release();
      stub.release();
      await vi.advanceTimersByTimeAsync(0);
      expect(stub.launched).toHaveLength(4);
    } finally {
      vi.useRealTimers();
    }
  });

  it('counts the runs of a tenant due and waiting to be sent, not those due later', async () => {
    vi.useFakeTimers({ now: 1_800_000_000_000 });
    try {
      const stub = new StubDispatcher();
      stub.slots = 1;
      const q = make(stub, 0);
      const now = Date.now();
      q.accept([run(1, now), run(2, now), run(3, now), run(4, now + 60_000), { ...run(5, now), tenantId: 'beta' }]);
      await vi.advanceTimersByTimeAsync(0);
      expect(stub.launched).toHaveLength(1);
      expect([q.waitingOf('acme') + q.waitingOf('beta'), q.heldOf('acme') + q.heldOf('beta')]).toEqual([3, 4]); // run 4 is due later: held, not waiting
      stub.release();
      await vi.advanceTimersByTimeAsync(0);
      expect(q.waitingOf('acme') + q.waitingOf('beta')).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  // Issue 11 item 3: a run due alone while a backlog is worked off used to wait behind all of it.
  it('a run due while the general slots are busy with a backlog goes out at once in a slot kept for on-time work', async () => {
    vi.useFakeTimers({ now: 1_800_000_000_000 });
    try {
      const stub = new StubDispatcher();
      stub.slots = 2;
      stub.onTimeSlots = 2;
      const q = make(stub);
      const t = Date.now() + 100;
      q.accept([...Array.from({ length: 50 }, (_, i) => run(i + 1, t)), run(100, t + 30), run(101, t + 60)]);
      await vi.advanceTimersByTimeAsync(100);
      // The burst came due together: none of it alone for its tenant, so none in the on-time lane; it takes the general
      // slots, and the slots kept for on-time work stay free (a burst is the general slots' work).
      expect(stub.launched.map((l) => [l.run.runId, l.onTime])).toEqual([[1, false], [2, false]]);
      await vi.advanceTimersByTimeAsync(30); // t + 30: the lone run is due: it goes at once, ahead of the backlog
      expect(stub.launched[2]).toMatchObject({ at: t + 30, onTime: true, run: { runId: 100 } });
      await vi.advanceTimersByTimeAsync(30); // t + 60: one slot left, kept for a run due alone: the next release serves the on-time run first
      expect(stub.launched).toHaveLength(3);
      stub.release();
      expect(stub.launched[3]).toMatchObject({ at: t + 60, onTime: true, run: { runId: 101 } });
      stub.release(); // on-time slot free, nothing on time: it stays free
      expect(stub.launched).toHaveLength(4);
      stub.release(); // a general slot: the backlog, oldest first
      expect(stub.launched[4]).toMatchObject({ onTime: false, run: { runId: 3 } });
      expect(q.held).toBe(47);
    } finally {
      vi.useRealTimers();
    }
  });

  // Issue 22 item 3: the on-time lane. Another tenant's run due alone goes first even when the backlog's own runs keep coming due
  // with it (a burst claimed late, a backlog of runs due at many instants), which left it behind them in the ready line.
  it("a run due alone for its tenant goes out at once ahead of another tenant's backlog, even one whose runs come due with it", async () => {
    vi.useFakeTimers({ now: 1_800_000_000_000 });
    try {
      const stub = new StubDispatcher();
      stub.slots = 2;
      stub.onTimeSlots = 1;
      const q = make(stub);
      const t = Date.now() + 100;
      const backlog = (from: number, n: number, at: number) => Array.from({ length: n }, (_, i) => run(from + i, at));
      q.accept(backlog(1, 50, t));
      await vi.advanceTimersByTimeAsync(100);
      expect(stub.launched).toHaveLength(2);
      q.accept([{ ...run(500, t + 30), tenantId: 'lone' }, ...backlog(100, 20, t + 30)]);
      await vi.advanceTimersByTimeAsync(30);
      expect(stub.launched[2]).toMatchObject({ at: t + 30, onTime: true, run: { runId: 500, tenantId: 'lone' } });
      // Its tenant's next run, due while none of its runs is in line, is in the lane again; the backlog's are not.
      stub.release();
      expect(stub.launched).toHaveLength(3); // the last slot kept for on-time work is not the backlog's newest's (takeNewestOnTime): it waits for a run due alone
      stub.inLane.clear(); // 500 was sent
      q.accept([{ ...run(501, t + 70), tenantId: 'lone' }]);
      await vi.advanceTimersByTimeAsync(40);
      expect(stub.launched[3]).toMatchObject({ at: t + 70, onTime: true, run: { runId: 501 } });
    } finally {
      vi.useRealTimers();
    }
  });

  // A lone tenant's run still being sent (a slow ack) keeps its next run out of the lane, the run
  // after that comes due behind it (not alone), and both would wait behind the other tenant's
  // backlog in the general slots (4 s late in a CI run). The general slots serve tenants in turn.
  it("a run that missed the lane (its tenant's previous one still being sent) goes out in the next general slot, not behind another tenant's backlog", async () => {
    vi.useFakeTimers({ now: 1_800_000_000_000 });
    try {
      const stub = new StubDispatcher();
      stub.slots = 2;
      stub.onTimeSlots = 1;
      const q = make(stub);
      const t = Date.now() + 100;
      q.accept(Array.from({ length: 200 }, (_, i) => run(1 + i, t)));
      q.accept([{ ...run(500, t + 10), tenantId: 'lone' }, { ...run(501, t + 60), tenantId: 'lone' }, { ...run(502, t + 110), tenantId: 'lone' }]);
      const lone = () => stub.launched.filter((l) => l.run.tenantId === 'lone').map((l) => l.run.runId);
      await vi.advanceTimersByTimeAsync(110);
      expect(lone()).toEqual([500]); // by the lane, in the on-time slot; every slot busy since, 500 still being sent
      await vi.advanceTimersByTimeAsync(250); // 501 and 502 came due meanwhile; both are now too late for the lane and the on-time slot
      const before = stub.launched.length;
      for (let i = 0; i < 6; i++) stub.release(); // the first frees only the on-time slot, which nothing on time is waiting for
      expect(stub.launched.slice(before).map((l) => l.run.tenantId)).toEqual(['acme', 'lone', 'acme', 'lone', 'acme']); // in turn
      expect(lone()).toEqual([500, 501, 502]);
      expect(q.held).toBeGreaterThan(190);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a task's backlog leaves its tenant's other tasks their turn: their runs go out between its runs, not after them", async () => {
    vi.useFakeTimers({ now: 1_800_000_000_000 });
    try {
      const stub = new StubDispatcher();
      stub.slots = 2;
      const q = make(stub);
      const t = Date.now() + 100;
      q.accept(Array.from({ length: 200 }, (_, i) => aClaimedRun(1 + i, t, { taskId: 7 })));
      q.accept([500, 501, 502].map((id, i) => aClaimedRun(id, t + 10 + i, { taskId: 8 })));
      await vi.advanceTimersByTimeAsync(120);
      expect(stub.launched.map((l) => l.run.taskId)).toEqual([7, 7]); // both slots taken before task 8's runs came due
      for (let i = 0; i < 6; i++) stub.release();
      expect(stub.launched.slice(2).map((l) => l.run.runId)).toEqual([500, 3, 501, 4, 502, 5]);
      expect(q.held).toBe(195);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a tenant holding its share of the slots (its executor slow to answer) leaves the others free for other tenants', async () => {
    vi.useFakeTimers({ now: 1_800_000_000_000 });
    try {
      const stub = new StubDispatcher();
      stub.slots = 5;
      const acmeInFlight = () => stub.launched.filter((l) => l.run.tenantId === 'acme').length; // nothing is released here
      stub.mayTakeSlot = (tenantId) => tenantId !== 'acme' || acmeInFlight() < 3;
      const q = make(stub);
      const t = Date.now() + 100;
      q.accept(Array.from({ length: 100 }, (_, i) => run(1 + i, t)));
      await vi.advanceTimersByTimeAsync(100);
      expect(acmeInFlight()).toBe(3); // two slots stay free though acme has 97 runs due
      q.accept([{ ...run(500, t + 10), tenantId: 'lone' }, { ...run(501, t + 10), tenantId: 'lone' }]);
      await vi.advanceTimersByTimeAsync(10);
      expect(stub.launched.slice(3).map((l) => l.run.runId)).toEqual([500, 501]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("starts a run due alone the lane's lead ahead of its instant, to be sent at it; its tenant's next runs and a backlog's go the usual way", async () => {
    vi.useFakeTimers({ now: 1_800_000_000_000 });
    try {
      const stub = new StubDispatcher();
      stub.slots = 2;
      stub.onTimeSlots = 1;
      stub.onTimeLeadMs = 40;
      const q = make(stub);
      const t = Date.now() + 200;
      q.accept([{ ...run(1, t), tenantId: 'lone' }, { ...run(2, t + 10), tenantId: 'lone' }, ...Array.from({ length: 5 }, (_, i) => run(10 + i, t + 100))]);
      await vi.advanceTimersByTimeAsync(159);
      expect(stub.launched).toEqual([]);
      await vi.advanceTimersByTimeAsync(1); // t − 40
      expect(stub.launched).toEqual([{ run: expect.objectContaining({ runId: 1 }), at: t - 40, onTime: true, sendAt: t }]);
      await vi.advanceTimersByTimeAsync(50); // t + 10: lone's second run: its tenant has one in the lane already, so at its instant
      expect(stub.launched[1]).toMatchObject({ run: { runId: 2 }, at: t + 10 });
      expect(stub.launched[1].sendAt).toBeUndefined();
      await vi.advanceTimersByTimeAsync(50); // t + 60 = the backlog's instant − 40: its first run starts ahead, alone for its tenant
      expect(stub.launched[2]).toMatchObject({ run: { runId: 10 }, at: t + 60, onTime: true, sendAt: t + 100 });
      await vi.advanceTimersByTimeAsync(40); // t + 100: the rest at its instant, in the general slots as they free up — not in the lane, where its tenant has a run
      expect(stub.launched).toHaveLength(3);
      stub.release();
      expect(stub.launched).toHaveLength(3);
      stub.release();
      expect(stub.launched[3]).toMatchObject({ run: { runId: 11 }, at: t + 100, onTime: false });
      expect(stub.launched).toHaveLength(4);
    } finally {
      vi.useRealTimers();
    }
  });

  it('lets a run its executors start at its instant come due BATON_SEND_AHEAD_MS ahead, behind runs of earlier instants; the others at their instant', async () => {
    vi.useFakeTimers({ now: 1_800_000_000_000 });
    try {
      const stub = new StubDispatcher();
      stub.slots = 1;
      stub.onTimeLeadMs = 40;
      const q = make(stub, 500);
      const t = Date.now() + 1_000;
      stub.ahead = new Set([1, 2]);
      q.accept([run(1, t), run(2, t + 100), run(3, t - 200), run(4, t)]);
      await vi.advanceTimersByTimeAsync(499);
      expect(stub.launched).toEqual([]);
      await vi.advanceTimersByTimeAsync(1); // t − 500: run 1 comes due (its instant stays t; the dispatcher sends it with it)
      expect(stub.launched).toMatchObject([{ run: { runId: 1, dueAt: t }, at: t - 500 }]);
      await vi.advanceTimersByTimeAsync(100); // t − 400: run 2 is due ahead, but the one slot is taken
      expect(stub.launched).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(200); // t − 200: run 3 (sent at its instant) is due too
      stub.release();
      // In the order of their instants: run 3 (t − 200) before run 2 (t + 100), which came due first.
      expect(stub.launched.map((l) => l.run.runId)).toEqual([1, 3]);
      expect(stub.launched[1].at).toBe(t - 200);
      stub.release();
      expect(stub.launched.map((l) => l.run.runId)).toEqual([1, 3, 2]);
      stub.release();
      await vi.advanceTimersByTimeAsync(159); // t − 41: run 4 is not sent ahead; the lane's lead is for runs due alone
      expect(stub.launched).toHaveLength(3);
      await vi.advanceTimersByTimeAsync(41);
      expect(stub.launched[3]).toMatchObject({ run: { runId: 4 }, at: t });
    } finally {
      vi.useRealTimers();
    }
  });

  it('takes a token for a run sent ahead as of its instant; one without a token waits in the queue for it and is not sent ahead', async () => {
    vi.useFakeTimers({ now: 1_800_000_000_000 });
    try {
      const stub = new StubDispatcher();
      const q = make(stub, 500);
      const t = Date.now() + 1_000;
      stub.ahead = new Set([1, 2]);
      const asOf: number[] = [];
      stub.takeTokens = (r: ClaimedRun, now: number) => {
        asOf.push(now);
        return r.runId === 2 && asOf.length === 2 ? 300 : 0; // run 2: its token comes 300 ms after the instant
      };
      q.accept([run(1, t), run(2, t)]);
      await vi.advanceTimersByTimeAsync(500); // t − 500
      expect(stub.launched.map((l) => l.run.runId)).toEqual([1]);
      expect(asOf).toEqual([t, t]);
      await vi.advanceTimersByTimeAsync(799); // t + 299
      expect(stub.launched).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1); // t + 300: sent when its token is there, after its instant
      expect(stub.launched[1]).toMatchObject({ run: { runId: 2 }, at: t + 300 });
    } finally {
      vi.useRealTimers();
    }
  });

  it("holds a run whose tenant's quota is not read yet, trying again 5 ms from now: it is still sent ahead once the quota is known", async () => {
    vi.useFakeTimers({ now: 1_800_000_000_000 });
    try {
      const stub = new StubDispatcher();
      const q = make(stub, 500);
      const t = Date.now() + 500;
      stub.ahead = new Set([1]);
      stub.unread.add('acme');
      q.accept([run(1, t)]);
      await vi.advanceTimersByTimeAsync(0); // t − 500: due to be sent ahead, its quota unknown
      expect(stub.launched).toHaveLength(0);
      await vi.advanceTimersByTimeAsync(TENANT_READ_WAIT_MS); // asked again: still unknown
      expect(stub.launched).toHaveLength(0);
      stub.unread.clear();
      await vi.advanceTimersByTimeAsync(TENANT_READ_WAIT_MS); // t − 490: known, sent ahead of its instant
      expect(stub.launched).toMatchObject([{ run: { runId: 1 }, at: t - 500 + 2 * TENANT_READ_WAIT_MS }]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('sends nothing ahead with BATON_SEND_AHEAD_MS=0', async () => {
    vi.useFakeTimers({ now: 1_800_000_000_000 });
    try {
      const stub = new StubDispatcher();
      const q = make(stub, 0);
      const t = Date.now() + 1_000;
      stub.ahead = new Set([1]);
      q.accept([run(1, t)]);
      await vi.advanceTimersByTimeAsync(999);
      expect(stub.launched).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(stub.launched).toMatchObject([{ run: { runId: 1 }, at: t }]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('waits for tokens: a run without one goes back to the queue until the token is there', async () => {
    const stub = new StubDispatcher();
    const q = make(stub);
    let first = true;
    stub.tokenWait = (_run, ahead) => {
      if (first) {
        first = false;
        return 0;
      }
      return 60 + ahead * 60; // one token every 60 ms
    };
    const due = Date.now() + 10;
    // Same tenant and task: the same buckets, so the second waits one token, the third two.
    q.accept([run(1, due), run(2, due), run(3, due)].map((r) => ({ ...r, taskId: 7 })));
    await eventually(() => stub.launched.length === 1, '1 launched');
    expect(q.held).toBe(2); // back in the queue, spread out
    stub.tokenWait = () => 0;
    await eventually(() => stub.launched.length === 3, '3 launched');
    const [a, b, c] = stub.launched.map((l) => l.at);
    expect(b - a).toBeGreaterThanOrEqual(50);
    expect(c - a).toBeGreaterThanOrEqual(110);
  });

  it('counts what it holds per tenant — due, waiting for a token, accepted again, given back — and says whose run left', async () => {
    const stub = new StubDispatcher();
    const q = make(stub);
    const released: string[] = [];
    q.onReleased((tenantId) => released.push(tenantId));
    const beta = (r: ClaimedRun) => ({ ...r, tenantId: 'beta' });
    let wait = 60;
    stub.tokenWait = (r) => (r.runId === 2 ? wait : 0);
    q.accept([run(1, Date.now()), run(2, Date.now()), run(3, Date.now() + 10_000), beta(run(4, Date.now() + 10_000))]);
    q.accept([run(3, Date.now() + 20_000)]); // accepted again: still one
    await eventually(() => stub.launched.length === 1, '1 launched');
    expect([q.heldOf('acme'), q.heldOf('beta')]).toEqual([2, 1]); // run 2 back in the queue for its token, run 3 later
    // By task too (the claimer's overdraft for a task holding few; each run here is a task of its own).
    const byTask = () => [1, 2, 3].map((task) => q.heldOfTask('acme', task)).concat(q.heldOfTask('beta', 4));
    expect(byTask()).toEqual([0, 1, 1, 1]);
    expect(released).toEqual(['acme']);
    wait = 0;
    await eventually(() => stub.launched.length === 2, '2 launched');
    expect(q.heldOf('acme')).toBe(1);
    stub.release();
    stub.keepForLater(run(1, Date.now()), Date.now() + 60_000); // given back: held again
    expect(q.heldOf('acme')).toBe(2);
    expect(byTask()).toEqual([1, 0, 1, 1]);
    q.drain();
    expect([q.heldOf('acme'), q.heldOf('beta'), ...byTask()]).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('says which runs are in its hands — queued, in the ready line, with the dispatcher — and which are not', async () => {
    vi.useFakeTimers({ now: 1_800_000_000_000 });
    try {
      const stub = new StubDispatcher();
      const q = make(stub);
      q.accept([run(1, Date.now()), run(2, Date.now() + 10_000)]);
      await vi.advanceTimersByTimeAsync(0);
      expect(stub.launched).toHaveLength(1);
      stub.slots = 0;
      q.accept([run(3, Date.now())]); // due, no slot: the ready line
      await vi.advanceTimersByTimeAsync(20);
      expect(stub.launched).toHaveLength(1);
      expect([1, 2, 3, 4].map((id) => q.holds(id))).toEqual([true, true, true, false]);
      stub.holding.delete(1); // the dispatcher let it go (acked and marked)
      expect(q.holds(1)).toBe(false);
      q.drain();
      expect([2, 3].map((id) => q.holds(id))).toEqual([false, false]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('drain() hands back what was not dispatched and nothing fires afterwards', async () => {
    vi.useFakeTimers({ now: 1_800_000_000_000 });
    try {
      const stub = new StubDispatcher();
      const q = make(stub);
      q.accept([run(1, Date.now() + 5), run(2, Date.now() + 150), run(3, Date.now() + 200)]);
      await vi.advanceTimersByTimeAsync(5);
      expect(stub.launched).toHaveLength(1);
      const drained = q.drain();
      expect(drained.map((r) => r.runId)).toEqual([2, 3]);
      expect(q.held).toBe(0);
      await vi.advanceTimersByTimeAsync(250); // past both drained runs' due times
      expect(stub.launched).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a run accepted again replaces the one held (one run, one entry)', async () => {
    vi.useFakeTimers({ now: 1_800_000_000_000 });
    try {
      const stub = new StubDispatcher();
      const q = make(stub);
      q.accept([run(1, Date.now() + 10_000)]);
      q.accept([run(1, Date.now() + 20)]);
      expect(q.held).toBe(1);
      await vi.advanceTimersByTimeAsync(20);
      expect(stub.launched).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(10_000); // past the replaced entry's due time
      expect(stub.launched).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('does not take again an attempt the dispatcher is sending (a wake-up read it unclaimed, then a claim turn claimed it); its next attempt it does', async () => {
    const stub = new StubDispatcher();
    const q = make(stub);
    const due = Date.now() - 1;
    q.accept([aClaimedRun(1, due, { unclaimed: true })]);
    expect(stub.launched.map((l) => l.run.runId)).toEqual([1]);
    // The slot's mark has not been written yet: the claim turn's copy of the same attempt arrives.
    q.accept([aClaimedRun(1, due), aClaimedRun(2, due)]);
    expect(stub.launched.map((l) => l.run.runId)).toEqual([1, 2]);
    expect(q.held).toBe(0);
    expect(q.heldOf('acme')).toBe(0);
    q.accept([aClaimedRun(1, due, { attempt: 2 })]);
    expect(stub.launched.map((l) => `${l.run.runId}/${l.run.attempt}`)).toEqual(['1/1', '2/1', '1/2']);
  });

  it('holds again a run the dispatcher gives back (database unreachable) and fires it at the given time — not after drain()', async () => {
    const stub = new StubDispatcher();
    const q = make(stub);
    q.accept([run(1, Date.now())]);
    await eventually(() => stub.launched.length === 1, '1 launched');
    stub.release();
    stub.keepForLater(run(1, Date.now()), Date.now() + 20);
    expect(q.held).toBe(1);
    await eventually(() => stub.launched.length === 2, '2 launched');
    stub.release();
    expect(q.drain()).toEqual([]);
    stub.keepForLater(run(2, Date.now()), Date.now());
    expect(q.held).toBe(0);
  });
});
