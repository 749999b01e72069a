import { describe, expect, it } from 'vitest';
import { HELD_PER_ROOM, MIN_TENANT_HELD, planClaimTurn, tenantBudgets, TENANTS_PER_TURN, type TenantLoad } from './claim-turn';

const load = (id: string, over: Partial<TenantLoad> = {}): TenantLoad => ({ id, engineGroup: 'default', claimShare: 1, executorRoom: 100, held: 0, recentlyAccepted: 0, active: true, ...over });

describe('tenantBudgets', () => {
  it('caps a tenant at HELD_PER_ROOM × its executors’ room, split between the engines', () => {
    const budgets = tenantBudgets([load('a', { executorRoom: 102 }), load('b', { executorRoom: 4 })], { maxHeld: 20_000, engines: 2 });
    expect(budgets.get('a')).toBe(Math.ceil((HELD_PER_ROOM * 102) / 2));
    expect(budgets.get('b')).toBe(MIN_TENANT_HELD); // 2 × 4 ÷ 2 is below the floor
  });

  it('a tenant without due work lately reserves nothing the busy ones could use, and may use what they leave', () => {
    const budgets = tenantBudgets([load('busy', { executorRoom: 10_000 }), load('idle', { executorRoom: 10_000, active: false })], { maxHeld: 20_000, engines: 1 });
    expect(budgets.get('busy')).toBe(20_000);
    expect(budgets.get('idle')).toBe(MIN_TENANT_HELD); // nothing left: the floor, until it is active
    const roomy = tenantBudgets([load('busy', { executorRoom: 100 }), load('idle', { executorRoom: 500, active: false })], { maxHeld: 20_000, engines: 1 });
    expect(roomy.get('idle')).toBe(1000); // its whole cap: the busy one uses 200
  });

  it('divides maxHeld by claim share when the tenants can use more than there is', () => {
    const budgets = tenantBudgets([load('a', { executorRoom: 1e6, claimShare: 3 }), load('b', { executorRoom: 1e6 })], { maxHeld: 20_000, engines: 1 });
    expect(budgets.get('a')).toBe(15_000);
    expect(budgets.get('b')).toBe(5000);
  });

  it('adds what the executors accepted in the last look-ahead: a fast tenant is held as fast as it is sent', () => {
    const budgets = tenantBudgets([load('fast', { executorRoom: 32, recentlyAccepted: 1500 })], { maxHeld: 20_000, engines: 2 });
    expect(budgets.get('fast')).toBe(32 + 1500);
  });

  it('an engine that is alone again takes the whole budget back', () => {
    const t = [load('a', { executorRoom: 1000 })];
    expect(tenantBudgets(t, { maxHeld: 20_000, engines: 3 }).get('a')).toBe(667);
    expect(tenantBudgets(t, { maxHeld: 20_000, engines: 1 }).get('a')).toBe(2000);
  });
});

describe('planClaimTurn', () => {
  it('divides the batch among the tenants with room, by weight, none above its room', () => {
    const tenants = [load('a', { held: 190 }), load('b'), load('c', { claimShare: 2 })];
    const budgets = new Map([
      ['a', 200],
      ['b', 1000],
      ['c', 1000],
    ]);
    const turn = planClaimTurn(tenants, budgets, { batch: 310, cursor: 0 });
    expect(turn.takes).toEqual([
      { tenantId: 'a', engineGroup: 'default', limit: 10 },
      { tenantId: 'b', engineGroup: 'default', limit: 100 },
      { tenantId: 'c', engineGroup: 'default', limit: 200 },
    ]);
    expect(turn.visited).toBe(3);
  });

  it('leaves out tenants without room, and tenants of share 0', () => {
    const turn = planClaimTurn([load('full', { held: 50 }), load('off', { claimShare: 0 }), load('ok')], new Map([['full', 50], ['off', 99], ['ok', 99]]), { batch: 500, cursor: 0 });
    expect(turn.takes.map((t) => t.tenantId)).toEqual(['ok']);
  });

  it('reads at most TENANTS_PER_TURN tenants a turn and goes on from there next turn, round the list', () => {
    const tenants = Array.from({ length: 250 }, (_, i) => load(`t${i}`));
    const budgets = new Map(tenants.map((t) => [t.id, 10]));
    const first = planClaimTurn(tenants, budgets, { batch: 500, cursor: 0 });
    expect(first.takes).toHaveLength(TENANTS_PER_TURN);
    expect(first.takes[0].tenantId).toBe('t0');
    expect(first.nextCursor).toBe(TENANTS_PER_TURN);
    const third = planClaimTurn(tenants, budgets, { batch: 500, cursor: 200 });
    expect(third.takes.map((t) => t.tenantId).slice(48, 52)).toEqual(['t248', 't249', 't0', 't1']);
  });

  it('a whole round in one turn starts one further on next time, so the rounding’s remainders rotate', () => {
    const tenants = [load('a'), load('b'), load('c')];
    const budgets = new Map(tenants.map((t) => [t.id, 100]));
    const one = planClaimTurn(tenants, budgets, { batch: 4, cursor: 0 });
    expect(one.takes.map((t) => t.limit)).toEqual([2, 1, 1]);
    const two = planClaimTurn(tenants, budgets, { batch: 4, cursor: one.nextCursor });
    expect(two.takes.map((t) => [t.tenantId, t.limit])).toEqual([
      ['b', 2],
      ['c', 1],
      ['a', 1],
    ]);
  });

  it('no tenants: nothing to claim', () => {
    expect(planClaimTurn([], new Map(), { batch: 500, cursor: 0 })).toEqual({ takes: [], nextCursor: 0, visited: 0 });
  });
});
