import { describe, expect, it } from 'vitest';
import { ManualClock } from '@baton/domain';
import type { ClaimedRun } from '../common/claimed-run';
import type { RoutedExecutor } from '../executors/executor-registry';
import { PROBE_MIN_MS } from '../executors/executor-credits';
import { CreditGate } from './credit-gate';

const run = (runId: number, executorApp = 'billing'): ClaimedRun => ({ runId, tenantId: 'acme', executorApp }) as ClaimedRun;
const executor = (executorId: number, capacity = 1, inFlight = 0, queueLimit = 0): RoutedExecutor => ({ id: String(executorId), executorId, url: `http://e${executorId}`, state: 'UP', capacity, inFlight, queueLimit, protocolVersion: 1, wire: 'baton' });

/** A round instant: the gate's probe timers move with this clock, not the wall's. */
const T0 = Date.UTC(2026, 0, 1);

function gate() {
  const resumed: number[] = [];
  const g = new CreditGate(new ManualClock(T0));
  g.onResume((r) => resumed.push(r.runId));
  return { g, resumed };
}

describe('credit gate (issue 11 item 1: a burst waits in the engine, not in 429s)', () => {
  it("admits while there is room, reserving the first candidate's at once, and holds the rest back", () => {
    const { g } = gate();
    const e = executor(1, 2);
    expect(g.admit(run(1), [e]).map((c) => c.executorId)).toEqual([1]);
    expect(g.admit(run(2), [e]).map((c) => c.executorId)).toEqual([1]);
    expect(g.admit(run(3), [e])).toEqual([]); // two places, both reserved: held back
    expect(g.held).toBe(1);
  });

  it("counts what it holds back per tenant (the claimer's budgets): up as runs wait, down as they are woken, nothing after takeAll", () => {
    const { g } = gate();
    const e = executor(1, 1);
    g.admit(run(1), [e]);
    for (const id of [2, 3]) g.admit(run(id), [e]);
    const b = executor(2, 1);
    for (const id of [4, 5]) g.admit({ ...run(id), tenantId: 'beta' }, [b]); // the first takes beta's one place
    expect([g.heldOf('acme'), g.heldOf('beta')]).toEqual([2, 1]);
    g.answered(1, { kind: 'ACCEPTED', credit: 1 });
    expect(g.heldOf('acme')).toBe(1);
    g.takeAll();
    expect([g.heldOf('acme'), g.heldOf('beta')]).toEqual([0, 0]);
  });

  it('before any answer, the heartbeat counts free queue places as room too', () => {
    const { g } = gate();
    const e = executor(1, 2, 3, 4); // 2 workers + 4 queue places, 3 in flight: 3 free
    for (const id of [1, 2, 3]) expect(g.admit(run(id), [e])).toHaveLength(1);
    expect(g.admit(run(4), [e])).toEqual([]);
  });

  it('a 202 reporting room wakes as many held-back runs, oldest first', () => {
    const { g, resumed } = gate();
    const e = executor(1, 1);
    g.admit(run(1), [e]);
    for (const id of [2, 3, 4]) g.admit(run(id), [e]);
    expect(resumed).toEqual([]);
    g.answered(1, { kind: 'ACCEPTED', credit: 2 });
    expect(resumed).toEqual([2, 3]);
    expect(g.held).toBe(1);
  });

  it('wakes held-back runs by their instant: a run due now before runs sent ahead for later; each tenant in its own line', () => {
    const { g, resumed } = gate();
    const e = executor(1, 1);
    const b = executor(2, 1);
    const due = (id: number, instant: number, tenantId = 'acme') => ({ ...run(id), instant, dueAt: instant, tenantId });
    g.admit(due(1, T0), [e]);
    g.admit(due(10, T0, 'beta'), [b]);
    // A burst sent ahead, due in 8 and 9 s, waits for room; then a trigger due now, and one of beta's due in 9 s.
    for (const [id, at] of [[2, T0 + 9_000], [3, T0 + 8_000], [4, T0 + 9_000]]) g.admit(due(id, at), [e]);
    g.admit(due(11, T0 + 9_000, 'beta'), [b]);
    g.admit(due(5, T0), [e]);
    g.answered(1, { kind: 'ACCEPTED', credit: 2 });
    expect(resumed).toEqual([5, 3]);
    // Woken, then held back again (the room went meanwhile): first among the runs due at its instant.
    g.answered(1, { kind: 'ACCEPTED', credit: 0 });
    g.admit(due(6, T0 + 8_000), [e]);
    g.admit(due(3, T0 + 8_000), [e]);
    g.answered(1, { kind: 'ACCEPTED', credit: 3 });
    expect(resumed).toEqual([5, 3, 3, 6, 2]);
    g.answered(2, { kind: 'ACCEPTED', credit: 1 });
    expect(resumed.slice(5)).toEqual([11]);
  });

  it('a run refused while sent ahead (sent again before its instant: dueAt < instant) does not stand before a run due now', () => {
    const { g, resumed } = gate();
    const e = executor(1, 1);
    g.admit(run(1), [e]);
    g.admit({ ...run(2), instant: T0 + 9_000, dueAt: T0 - 5_000 }, [e]); // refused at T0 − 5.05 s, its back-off over at T0 − 5 s
    g.admit({ ...run(3), instant: T0, dueAt: T0 }, [e]); // a trigger
    g.answered(1, { kind: 'ACCEPTED', credit: 1 });
    expect(resumed).toEqual([3]);
  });

  describe('places kept for runs due now (issue 44: a trigger during a burst sent ahead)', () => {
    const ahead = (id: number, instant: number, tenantId = 'acme') => ({ ...run(id), instant, dueAt: instant, tenantId });
    const now = (id: number, tenantId = 'acme') => ahead(id, T0, tenantId);

    it("runs sent ahead leave the executor's workers' worth of places free; a run due now takes one at once", () => {
      const { g } = gate();
      const e = executor(1, 4, 0, 8); // 4 workers + 8 queue places: 4 kept
      for (let id = 1; id <= 8; id++) expect(g.admit(ahead(id, T0 + 5_000), [e])).toHaveLength(1);
      expect(g.admit(ahead(9, T0 + 5_000), [e])).toEqual([]);
      expect(g.admit(now(20), [e])).toHaveLength(1);
      expect(g.admit(ahead(21, T0 + 50), [e])).toHaveLength(1); // the on-time lane's run, started 50 ms ahead: due now
      // Another tenant's trigger on its own executor: its own line, its own room.
      const b = executor(2, 4, 0, 8);
      for (let id = 30; id < 38; id++) g.admit(ahead(id, T0 + 5_000, 'beta'), [b]);
      expect(g.admit(now(40, 'beta'), [b])).toHaveLength(1);
    });

    it('shared by two engines: each keeps its half', () => {
      const g = new CreditGate(new ManualClock(T0), () => 2);
      const e = executor(1, 4, 0, 8); // 12 places: 6 this engine's, 2 of them kept
      for (let id = 1; id <= 4; id++) expect(g.admit(ahead(id, T0 + 5_000), [e])).toHaveLength(1);
      expect(g.admit(ahead(5, T0 + 5_000), [e])).toEqual([]);
      expect(g.admit(now(6), [e])).toHaveLength(1);
      expect(g.admit(now(7), [e])).toHaveLength(1);
      expect(g.admit(now(8), [e])).toEqual([]); // the kept places are taken: held back like any run
    });

    it('room reported wakes the runs due now first, and runs sent ahead only beyond the kept places', () => {
      const { g, resumed } = gate();
      const e = executor(1, 4, 0, 8);
      g.answered(1, { kind: 'ACCEPTED', credit: 0 }); // full
      for (const id of [1, 2, 3]) g.admit(ahead(id, T0 + 5_000), [e]);
      g.admit(now(4), [e]);
      g.reported(1, 5, 2); // room for 5, 4 of them kept: the run due now takes one, a run sent ahead none
      expect(resumed).toEqual([4]);
      g.reported(1, 6, 3); // 6, 4 kept: 2 for runs sent ahead
      expect(resumed).toEqual([4, 1, 2]);
    });

    it('a run sent ahead held back for the kept places goes at its instant, when they are its (fake clock)', () => {
      const clock = new ManualClock(T0);
      const g = new CreditGate(clock);
      const resumed: number[] = [];
      g.onResume((r) => resumed.push(r.runId));
      const e = executor(1, 4, 0, 0); // 4 places, 2 kept (at most half)
      for (const id of [1, 2]) g.admit(ahead(id, T0 + 3_000), [e]);
      g.admit(ahead(3, T0 + 3_000), [e]);
      g.answered(1, { kind: 'ACCEPTED', credit: 2 }); // 2 of 4 left: both kept
      g.answered(1, { kind: 'ACCEPTED', credit: 2 });
      clock.advance(2_000);
      expect(resumed).toEqual([]);
      clock.advance(1_001);
      expect(resumed).toEqual([3]);
    });
  });

  it("wakes a tenant's tasks in turn: another task's run due now waits for one run of a backlog held back, not all of it", () => {
    const { g, resumed } = gate();
    const e = executor(1, 1);
    const of = (runId: number, taskId: number, instant: number) => ({ ...run(runId), taskId, instant, dueAt: instant });
    g.admit(of(1, 7, T0), [e]);
    g.answered(1, { kind: 'ACCEPTED', credit: 0, creditSeq: 1 });
    for (let id = 2; id <= 11; id++) g.admit(of(id, 7, T0), [e]); // task 7's backlog, held back
    g.admit(of(20, 8, T0 + 10), [e]); // task 8's trigger, due now, its instant later than the backlog's
    g.admit(of(30, 9, T0 + 60_000), [e]); // task 9's run sent ahead: after the runs due now whatever the turns
    for (let seq = 2; seq <= 5; seq++) g.reported(1, 1, seq); // one place at a time, as a slow handler frees them
    expect(resumed).toEqual([2, 20, 3, 4]);
    g.reported(1, 100, 6);
    expect(resumed).toEqual([2, 20, 3, 4, 5, 6, 7, 8, 9, 10, 11, 30]);
    expect(g.held).toBe(0);
  });

  it('room reported by an outcome callback wakes as many', () => {
    const { g, resumed } = gate();
    const e = executor(1, 1);
    g.admit(run(1), [e]);
    g.answered(1, { kind: 'ACCEPTED', credit: 0, creditSeq: 1 });
    for (const id of [2, 3, 4]) g.admit(run(id), [e]);
    g.reported(1, 2, 2);
    expect(resumed).toEqual([2, 3]);
  });

  it('with no answer coming, one probe goes after its turn; the others wait for its answer', () => {
    const e = executor(1, 1);
    const sent: number[] = [];
    // As the dispatcher does: a woken run comes back to admit, and is sent if admitted.
    const clock = new ManualClock(T0);
    const g = new CreditGate(clock);
    g.onResume((r) => {
      if (g.admit(r, [e]).length > 0) sent.push(r.runId);
    });
    g.admit(run(1), [e]);
    g.answered(1, { kind: 'BUSY' }); // refused: spent, probe after PROBE_MIN_MS
    for (const id of [2, 3, 4]) g.admit(run(id), [e]);
    clock.advance(PROBE_MIN_MS - 1);
    expect(sent).toEqual([]); // not before its turn
    clock.advance(61);
    expect(sent).toEqual([2]); // the probe; 3 and 4 held back until it is answered
    expect(g.held).toBe(2);
    g.answered(1, { kind: 'ACCEPTED', credit: 5 });
    expect(sent).toEqual([2, 3, 4]);
  });

  it('runs of another app are not woken by this executor', () => {
    const { g, resumed } = gate();
    g.admit(run(1, 'billing'), [executor(1, 1)]);
    g.admit(run(2, 'billing'), [executor(1, 1)]);
    g.admit(run(3, 'mail'), [executor(2, 0)]); // a first contact: admitted as a probe
    g.admit(run(4, 'mail'), [executor(2, 0)]);
    g.answered(1, { kind: 'ACCEPTED', credit: 5 });
    expect(resumed).toEqual([2]);
  });

  it('a reservation given back (the run was never sent) is room again', () => {
    const { g } = gate();
    const e = executor(1, 1);
    g.admit(run(1), [e]);
    g.answered(1, { kind: 'OTHER' });
    expect(g.admit(run(2), [e])).toHaveLength(1);
  });

  it('hands everything held back over at shutdown, and when the app has no executor left', () => {
    const { g, resumed } = gate();
    const e = executor(1, 1);
    g.admit(run(1), [e]);
    g.admit(run(2), [e]);
    g.admit(run(3, 'mail'), [executor(2, 1)]);
    g.admit(run(4, 'mail'), [executor(2, 1)]);
    g.releaseApp(run(0));
    expect(resumed).toEqual([2]);
    expect(g.takeAll().map((r) => r.runId)).toEqual([4]);
    expect(g.held).toBe(0);
  });
});
