import { describe, expect, it } from 'vitest';
import type { ClaimedRun } from '../common/claimed-run';
import { ON_TIME_WINDOW_MS, ReadyLine } from './ready-line';

const run = (runId: number, dueAt: number, tenantId = 'acme', taskId = 1, priority = 0) => ({ runId, dueAt, instant: dueAt, tenantId, taskId, priority }) as ClaimedRun;
const T = 1_000_000;
const any = () => true;
const one = () => 1;

describe('ReadyLine', () => {
  it("serves a tenant's runs oldest first in turn and the tail newest first", () => {
    const line = new ReadyLine();
    [1, 2, 3, 4].forEach((id) => line.push(run(id, T + id)));
    expect(line.takeInTurn(one)?.runId).toBe(1);
    expect(line.takeNewestOnTime(T + 4)?.runId).toBe(4);
    expect(line.takeInTurn(one)?.runId).toBe(2);
    expect(line.takeNewestOnTime(T + 4)?.runId).toBe(3);
    expect(line.takeInTurn(one)).toBeUndefined();
    expect(line.takeNewestOnTime(T + 4)).toBeUndefined();
    expect(line.size).toBe(0);
  });

  it("serves a tenant's runs in the order of their instants: a run due now goes before runs sent ahead for later", () => {
    const line = new ReadyLine();
    // Sent ahead (sendable 10 s before their instants), then a run due now, then one between.
    const ahead = (runId: number, instant: number) => ({ runId, dueAt: instant - 10_000, instant, tenantId: 'acme', taskId: 1, priority: 0 }) as ClaimedRun;
    line.push(ahead(1, T + 9_000));
    line.push(ahead(2, T + 9_500));
    line.push(run(3, T));
    line.push(ahead(4, T + 9_000)); // same instant as run 1: after it
    line.push(ahead(5, T + 5_000));
    expect([1, 2, 3, 4, 5].map(() => line.takeInTurn(one)?.runId)).toEqual([3, 5, 1, 4, 2]);
  });

  it('the runs of one instant are left to the general slots, all but the last', () => {
    const line = new ReadyLine();
    [1, 2, 3].forEach((id) => line.push(run(id, T)));
    expect(line.takeNewestOnTime(T)).toBeUndefined();
    line.push(run(4, T + 5)); // due alone after them
    expect(line.takeNewestOnTime(T + 5)?.runId).toBe(4);
    expect(line.takeInTurn(one)?.runId).toBe(1);
    expect(line.takeInTurn(one)?.runId).toBe(2);
    expect(line.takeNewestOnTime(T + 5)?.runId).toBe(3); // alone in line
  });

  it('the tail goes to an on-time slot only while it is on time', () => {
    const line = new ReadyLine();
    line.push(run(1, T));
    expect(line.takeNewestOnTime(T + ON_TIME_WINDOW_MS + 1)).toBeUndefined();
    expect(line.size).toBe(1);
    expect(line.takeNewestOnTime(T + ON_TIME_WINDOW_MS)?.runId).toBe(1);
  });

  it('a run pushed again or removed is not served twice, and takeAll hands back the rest in order', () => {
    const line = new ReadyLine();
    [1, 2, 3].forEach((id) => line.push(run(id, T)));
    line.push(run(1, T + 5)); // accepted again: its new place is at the tail
    expect(line.remove(2)).toBe(true);
    expect(line.remove(2)).toBe(false);
    expect(line.size).toBe(2);
    expect([line.countOf('acme'), line.countOf('beta')]).toEqual([2, 0]);
    expect(line.takeNewestOnTime(T)?.runId).toBe(1);
    expect(line.takeAll().map((r) => r.runId)).toEqual([3]);
    expect(line.size).toBe(0);
  });

  it('stays compact over a long run of pushes and takes', () => {
    const line = new ReadyLine();
    for (let i = 0; i < 10_000; i++) {
      line.push(run(i, T));
      if (i % 2 === 1) {
        line.takeInTurn(one);
        line.takeInTurn(one);
      }
    }
    expect(line.size).toBe(0);
    expect(line.takeInTurn(one)).toBeUndefined();
  });

  it('a line that never empties (runs leave in turn, not from its head) keeps only what it still holds', () => {
    const line = new ReadyLine();
    const kept = () => (line as unknown as { entries: unknown[] }).entries.length;
    for (let i = 0; i < 20_000; i++) {
      line.push(run(i, T + i, i % 2 === 0 ? 'a' : 'b'));
      if (i >= 10) line.takeInTurn(one);
    }
    expect(line.size).toBe(10);
    expect(kept()).toBeLessThan(2_100);
  });

  describe('the tenants in turn (takeInTurn)', () => {
    it("serves each tenant in line in turn, its runs oldest first: a backlog of 1,000 costs a later tenant's run one turn, not 1,000", () => {
      const line = new ReadyLine();
      for (let i = 1; i <= 1000; i++) line.push(run(i, T, 'burst'));
      line.push(run(5000, T + 900, 'lone'));
      line.push(run(5001, T + 950, 'lone'));
      const order = Array.from({ length: 6 }, () => line.takeInTurn(one)?.runId);
      expect(order).toEqual([1, 5000, 2, 5001, 3, 4]);
      expect(line.size).toBe(1000 - 4);
    });

    it('a turn is as many runs as the claim share says (deficit round robin), at least one', () => {
      const line = new ReadyLine();
      for (let i = 1; i <= 10; i++) line.push(run(i, T, 'big'));
      for (let i = 11; i <= 20; i++) line.push(run(i, T, 'small'));
      for (let i = 21; i <= 22; i++) line.push(run(i, T, 'zero'));
      const shares: Record<string, number> = { big: 3, small: 1, zero: 0 };
      const tenants = Array.from({ length: 12 }, () => line.takeInTurn((t) => shares[t])?.tenantId);
      expect(tenants).toEqual(['big', 'big', 'big', 'small', 'zero', 'big', 'big', 'big', 'small', 'zero', 'big', 'big']);
      // big ends its turn; 'zero' has no runs left and leaves the round; once big's last run is out, small's follow.
      expect(Array.from({ length: 6 }, () => line.takeInTurn((t) => shares[t])?.runId)).toEqual([9, 13, 10, 14, 15, 16]);
    });

    it('runs removed or taken another way are skipped, and a tenant whose line emptied keeps its place until its turn comes', () => {
      const line = new ReadyLine();
      line.push(run(1, T, 'a'));
      line.push(run(2, T, 'b'));
      line.push(run(3, T, 'b'));
      expect(line.takeInTurn(one)?.runId).toBe(1); // a's line is empty now
      line.push(run(4, T + 1, 'c'));
      line.push(run(5, T + 2, 'a'));
      expect(line.remove(3)).toBe(true);
      expect([1, 2, 3].map(() => line.takeInTurn(one)?.runId)).toEqual([2, 5, 4]);
      expect(line.takeInTurn(one)).toBeUndefined();
      expect(line.size).toBe(0);
    });
  });

  describe("a tenant's tasks in turn (takeInTurn)", () => {
    it("a backlog of 1,000 runs of one task costs a run of another task of its tenant one run, not 1,000", () => {
      const line = new ReadyLine();
      for (let i = 1; i <= 1000; i++) line.push(run(i, T, 'acme', 1));
      line.push(run(5000, T + 900, 'acme', 2));
      line.push(run(5001, T + 950, 'acme', 2));
      expect(Array.from({ length: 6 }, () => line.takeInTurn(one)?.runId)).toEqual([1, 5000, 2, 5001, 3, 4]);
    });

    it('a task coming into line goes next, then in turn: not ahead by the turns it missed while away', () => {
      const line = new ReadyLine();
      for (let i = 1; i <= 100; i++) line.push(run(i, T, 'acme', 1));
      for (let i = 0; i < 10; i++) line.takeInTurn(one);
      [201, 202, 203].forEach((id) => line.push(run(id, T + 500, 'acme', 2)));
      expect(Array.from({ length: 6 }, () => line.takeInTurn(one)?.runId)).toEqual([201, 11, 202, 12, 203, 13]);
    });

    it("among tasks served alike, the first run due goes first: a run due now before other tasks' runs sent ahead", () => {
      const line = new ReadyLine();
      const ahead = (runId: number, taskId: number) => ({ runId, dueAt: T - 1_000, instant: T + 9_000, tenantId: 'acme', taskId, priority: 0 }) as ClaimedRun;
      for (let i = 1; i <= 100; i++) line.push(ahead(i, 100 + i)); // 100 one-shot tasks, sent ahead
      line.push(run(500, T, 'acme', 7)); // a trigger
      expect(line.takeInTurn(one)?.runId).toBe(500);
      expect(line.takeInTurn(one)?.runId).toBe(1);
    });

    it('among runs of one instant, the higher priority first, then the first in line', () => {
      const line = new ReadyLine();
      line.push(run(1, T, 'acme', 1, 0));
      line.push(run(2, T, 'acme', 2, 5));
      line.push(run(3, T, 'acme', 3, 0));
      expect([1, 2, 3].map(() => line.takeInTurn(one)?.runId)).toEqual([2, 1, 3]);
    });

    it("a task whose first run was removed or taken another way stands by its next run", () => {
      const line = new ReadyLine();
      line.push(run(1, T, 'acme', 1));
      line.push(run(2, T + 100, 'acme', 1));
      line.push(run(3, T + 50, 'acme', 2));
      expect(line.remove(1)).toBe(true);
      expect([1, 2].map(() => line.takeInTurn(one)?.runId)).toEqual([3, 2]);
      expect(line.takeInTurn(one)).toBeUndefined();
      expect(line.size).toBe(0);
    });

    it('stays compact: a task that leaves the line leaves nothing behind', () => {
      const line = new ReadyLine();
      for (let i = 0; i < 5_000; i++) {
        line.push(run(i, T + i, 'acme', i));
        line.push(run(100_000 + i, T + i, 'acme', -1)); // one long-lived task beside thousands of passing ones
        line.takeInTurn(one);
      }
      const tenantLine = (line as unknown as { lines: Map<string, { tasks: Map<number, unknown> }> }).lines.get('acme');
      expect(line.size).toBe(5_000);
      expect(tenantLine?.tasks.size).toBeLessThanOrEqual(2_600);
    });
  });

  describe('slots a tenant may not take (takeInTurn with may)', () => {
    it('passes the turn of a tenant that may not have a run now, and gives nothing when no tenant in line may', () => {
      const line = new ReadyLine();
      for (let i = 1; i <= 3; i++) line.push(run(i, T, 'slow'));
      line.push(run(10, T + 1, 'other'));
      const notSlow = (t: string) => t !== 'slow';
      expect(line.takeInTurn(one, notSlow)?.runId).toBe(10);
      expect(line.takeInTurn(one, notSlow)).toBeUndefined();
      expect(line.size).toBe(3);
      expect(line.takeInTurn(one)?.runId).toBe(1);
    });
  });

  describe('the on-time lane (takeAlone)', () => {
    it("serves a run that came due while its tenant had none in line, ahead of another tenant's backlog", () => {
      const line = new ReadyLine();
      for (let i = 1; i <= 1000; i++) line.push(run(i, T, 'burst'));
      line.push(run(5000, T + 3, 'lone'));
      expect(line.takeAlone(T + 3, any)?.runId).toBe(1); // the burst's first run came due alone for its tenant: one run, not the burst
      expect(line.takeAlone(T + 3, any)?.runId).toBe(5000);
      expect(line.takeAlone(T + 3, any)).toBeUndefined();
      expect(line.takeInTurn(one)?.runId).toBe(2);
    });

    it("a backlog's later runs are never in the lane: a tenant has at most one run there at a time", () => {
      const line = new ReadyLine();
      [1, 2, 3].forEach((id) => line.push(run(id, T + id, 'burst')));
      expect(line.takeAlone(T + 3, any)?.runId).toBe(1);
      line.push(run(4, T + 4, 'burst')); // 2 and 3 still in line: not alone
      expect(line.takeAlone(T + 4, any)).toBeUndefined();
      expect(line.takeInTurn(one)?.runId).toBe(2);
      expect(line.takeInTurn(one)?.runId).toBe(3);
      expect(line.takeInTurn(one)?.runId).toBe(4);
      line.push(run(5, T + 10, 'burst')); // its tenant's line is empty again: this one came due alone
      expect(line.takeAlone(T + 10, any)?.runId).toBe(5);
    });

    it("runs that came due together (one pump): only a tenant's lone one is in the lane, a tenant's several go in turn", () => {
      const line = new ReadyLine();
      line.pushAll([run(1, T, 'woken'), run(2, T, 'lone'), run(3, T, 'woken'), run(4, T, 'woken')]);
      expect(line.takeAlone(T + 1, any)?.runId).toBe(2);
      expect(line.takeAlone(T + 1, any)).toBeUndefined();
      expect([line.takeInTurn(one), line.takeInTurn(one), line.takeInTurn(one)].map((r) => r?.runId)).toEqual([1, 3, 4]);
    });

    it('a lane run that came due in an earlier pump stays in the lane when more of its tenant come due', () => {
      const line = new ReadyLine();
      line.pushAll([run(1, T, 'a')]);
      line.pushAll([run(2, T + 1, 'a'), run(3, T + 1, 'a')]);
      expect(line.takeAlone(T + 1, any)?.runId).toBe(1);
      expect(line.takeAlone(T + 1, any)).toBeUndefined();
      expect(line.takeInTurn(one)?.runId).toBe(2);
    });

    it("passes over a tenant the caller says may not have it now (a run of it in the lane already), and keeps its run for later", () => {
      const line = new ReadyLine();
      line.push(run(1, T, 'a'));
      line.push(run(2, T + 1, 'b'));
      expect(line.takeAlone(T + 1, (tenantId) => tenantId !== 'a')?.runId).toBe(2);
      expect(line.takeAlone(T + 1, (tenantId) => tenantId !== 'a')).toBeUndefined();
      expect(line.takeAlone(T + 5, any)?.runId).toBe(1);
    });

    it('only while on time: a late run is left to the general slots', () => {
      const line = new ReadyLine();
      line.push(run(1, T, 'lone'));
      expect(line.takeAlone(T + ON_TIME_WINDOW_MS + 1, any)).toBeUndefined();
      expect(line.size).toBe(1);
      expect(line.takeInTurn(one)?.runId).toBe(1);
    });

    it('skips a lane run taken meanwhile by another way out or removed, and serves tenants in the order their runs came due', () => {
      const line = new ReadyLine();
      line.push(run(1, T, 'a'));
      line.push(run(2, T + 1, 'b'));
      line.push(run(3, T + 2, 'c'));
      expect(line.takeInTurn(one)?.runId).toBe(1);
      expect(line.remove(2)).toBe(true);
      expect(line.takeAlone(T + 2, any)?.runId).toBe(3);
      expect(line.takeAlone(T + 2, any)).toBeUndefined();
      expect(line.size).toBe(0);
    });
  });
});
