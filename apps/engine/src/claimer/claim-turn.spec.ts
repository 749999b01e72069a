import { describe, expect, it } from 'vitest';
import { HELD_PER_ROOM, IDLE_PLACES, MIN_TENANT_HELD, planClaimTurn, tenantBudgets, TENANTS_PER_TURN, type TenantLoad } from './claim-turn';

const load = (id: string, over: Partial<TenantLoad> = {}): TenantLoad => ({ id, engineGroup: 'default', claimShare: 1, executorRoom: 100, held: 0, recentlyAccepted: 0, active: true, backlogged: true, ...over });

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
  const at0 = { active: 0, idle: 0 };

  it('divides the batch among the tenants with room, by weight, none above its room', () => {
    const tenants = [load('a', { held: 190 }), load('b'), load('c', { claimShare: 2 })];
    const budgets = new Map([
      ['a', 200],
      ['b', 1000],
      ['c', 1000],
    ]);
    const turn = planClaimTurn(tenants, budgets, { batch: 310, cursor: at0 });
    expect(turn.takes).toEqual([
      { tenantId: 'a', engineGroup: 'default', limit: 10 },
      { tenantId: 'b', engineGroup: 'default', limit: 100 },
      { tenantId: 'c', engineGroup: 'default', limit: 200 },
    ]);
    expect(turn).toMatchObject({ active: 3, activeRead: 3 });
  });

  it('leaves out tenants without room, and tenants of share 0', () => {
    const turn = planClaimTurn([load('full', { held: 50 }), load('off', { claimShare: 0 }), load('ok')], new Map([['full', 50], ['off', 99], ['ok', 99]]), { batch: 500, cursor: at0 });
    expect(turn.takes.map((t) => t.tenantId)).toEqual(['ok']);
  });

  it('reads the active tenants round their list, TENANTS_PER_TURN − IDLE_PLACES a turn, and idle ones in the places left', () => {
    const active = Array.from({ length: 250 }, (_, i) => load(`a${i}`));
    const idle = Array.from({ length: 50 }, (_, i) => load(`i${i}`, { active: false, backlogged: false }));
    const budgets = new Map([...active, ...idle].map((t) => [t.id, 10]));
    const first = planClaimTurn([...active, ...idle], budgets, { batch: 1000, cursor: at0 });
    expect(first.takes).toHaveLength(TENANTS_PER_TURN);
    expect(first.takes.filter((t) => t.tenantId.startsWith('i'))).toHaveLength(IDLE_PLACES);
    expect(first).toMatchObject({ active: 250, activeRead: TENANTS_PER_TURN - IDLE_PLACES, nextCursor: { active: 80, idle: 20 } });
    const third = planClaimTurn([...active, ...idle], budgets, { batch: 1000, cursor: { active: 200, idle: 40 } });
    expect(third.takes.map((t) => t.tenantId).slice(48, 52)).toEqual(['a248', 'a249', 'a0', 'a1']);
    expect(third.takes.map((t) => t.tenantId).slice(80, 82)).toEqual(['i40', 'i41']);
  });

  it('with few active tenants, idle ones fill the turn: 1,000 idle tenants are each read every 10 turns, not all every turn', () => {
    const tenants = [load('busy'), ...Array.from({ length: 1000 }, (_, i) => load(`i${i}`, { active: false, backlogged: false }))];
    const budgets = new Map(tenants.map((t) => [t.id, 10]));
    let cursor = at0;
    const seen = new Set<string>();
    for (let turn = 0; turn < 11; turn++) {
      const plan = planClaimTurn(tenants, budgets, { batch: 500, cursor });
      expect(plan.takes).toHaveLength(TENANTS_PER_TURN);
      expect(plan.takes[0].tenantId).toBe('busy'); // every turn
      plan.takes.forEach((t) => seen.add(t.tenantId));
      cursor = plan.nextCursor;
    }
    expect(seen.size).toBe(1001);
  });

  it('a whole list in one turn starts one further on next time, so the rounding’s remainders rotate', () => {
    const tenants = [load('a'), load('b'), load('c')];
    const budgets = new Map(tenants.map((t) => [t.id, 100]));
    const one = planClaimTurn(tenants, budgets, { batch: 4, cursor: at0 });
    expect(one.takes.map((t) => t.limit)).toEqual([2, 1, 1]);
    const two = planClaimTurn(tenants, budgets, { batch: 4, cursor: one.nextCursor });
    expect(two.takes.map((t) => [t.tenantId, t.limit])).toEqual([
      ['b', 2],
      ['c', 1],
      ['a', 1],
    ]);
  });

  it('no tenants: nothing to claim', () => {
    expect(planClaimTurn([], new Map(), { batch: 500, cursor: at0 })).toEqual({ takes: [], nextCursor: at0, active: 0, activeRead: 0 });
  });
});
