import { describe, expect, it } from 'vitest';
import { ConsistentHashStrategy } from './consistent-hash';
import { createRoutingStrategy } from './create';
import { FailoverStrategy } from './failover';
import { LeastBusyStrategy } from './least-busy';
import { RoundRobinStrategy } from './round-robin';
import { ROUTING_KINDS, type ExecutorCandidate } from './types';

const ex = (id: string, state: 'UP' | 'DOWN' = 'UP', capacity = 10, inFlight = 0): ExecutorCandidate => ({ id, state, capacity, inFlight });
const ids = (cs: readonly ExecutorCandidate[]) => cs.map((c) => c.id);

describe('every strategy', () => {
  const pool = [ex('a'), ex('b', 'DOWN'), ex('c'), ex('d', 'DOWN'), ex('e')];
  it.each(ROUTING_KINDS)('%s skips DOWN executors and returns each UP one once', (kind) => {
    const s = createRoutingStrategy(kind);
    for (let i = 0; i < 5; i++) {
      const order = s.order(pool, { key: `task-${i}` });
      expect([...ids(order)].sort()).toEqual(['a', 'c', 'e']);
    }
    expect(s.order([ex('x', 'DOWN')], { key: 'k' })).toEqual([]);
    expect(s.order([], { key: 'k' })).toEqual([]);
  });

  it('keeps the caller’s candidate objects (and type)', () => {
    const rich = [{ ...ex('a'), url: 'http://a' }];
    const [first] = new RoundRobinStrategy().order(rich);
    expect(first.url).toBe('http://a');
    expect(first).toBe(rich[0]);
  });
});

describe('RoundRobinStrategy', () => {
  it('starts one further each call and wraps; the rest of the rotation is the fallback order', () => {
    const s = new RoundRobinStrategy();
    const pool = [ex('a'), ex('b'), ex('c')];
    expect(ids(s.order(pool))).toEqual(['a', 'b', 'c']);
    expect(ids(s.order(pool))).toEqual(['b', 'c', 'a']);
    expect(ids(s.order(pool))).toEqual(['c', 'a', 'b']);
    expect(ids(s.order(pool))).toEqual(['a', 'b', 'c']);
  });

  it('spreads evenly over the UP executors', () => {
    const s = new RoundRobinStrategy();
    const pool = [ex('a'), ex('b', 'DOWN'), ex('c'), ex('d')];
    const firsts = new Map<string, number>();
    for (let i = 0; i < 300; i++) {
      const id = s.order(pool)[0].id;
      firsts.set(id, (firsts.get(id) ?? 0) + 1);
    }
    expect(Object.fromEntries(firsts)).toEqual({ a: 100, c: 100, d: 100 });
  });
});

describe('LeastBusyStrategy', () => {
  it('orders by inFlight / capacity, not by inFlight alone; no capacity goes last', () => {
    const s = new LeastBusyStrategy();
    const pool = [ex('small', 'UP', 2, 1), ex('big', 'UP', 100, 10), ex('none', 'UP', 0, 0), ex('full', 'UP', 4, 4)];
    expect(ids(s.order(pool))).toEqual(['big', 'small', 'full', 'none']);
  });

  it('rotates among equally loaded executors so a burst is spread', () => {
    const s = new LeastBusyStrategy();
    const pool = [ex('a'), ex('b'), ex('c'), ex('busy', 'UP', 10, 5)];
    const firsts = [0, 1, 2, 3, 4, 5].map(() => s.order(pool)[0].id);
    expect(firsts).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
    expect(s.order(pool).at(-1)?.id).toBe('busy');
  });
});

describe('FailoverStrategy', () => {
  it('always the first UP executor of the preference order, then the others', () => {
    const s = new FailoverStrategy({ preference: ['primary', 'standby'] });
    const pool = [ex('other'), ex('standby'), ex('primary')];
    expect(ids(s.order(pool))).toEqual(['primary', 'standby', 'other']);
    expect(ids(s.order(pool))).toEqual(['primary', 'standby', 'other']); // no rotation
    expect(ids(s.order([ex('other'), ex('standby'), ex('primary', 'DOWN')]))).toEqual(['standby', 'other']);
  });

  it('without a preference, uses the list order', () => {
    expect(ids(new FailoverStrategy().order([ex('x', 'DOWN'), ex('y'), ex('z')]))).toEqual(['y', 'z']);
  });
});

describe('ConsistentHashStrategy', () => {
  const pool = Array.from({ length: 10 }, (_, i) => ex(`exec-${i}`));
  const keys = Array.from({ length: 10_000 }, (_, i) => `task-${i}`);

  it('maps a key to the same executor every time, whatever the list order', () => {
    const s = new ConsistentHashStrategy();
    const shuffled = [...pool].reverse();
    for (const key of keys.slice(0, 500)) {
      expect(ids(s.order(pool, { key }))).toEqual(ids(s.order(shuffled, { key })));
    }
    expect(ids(new ConsistentHashStrategy().order(pool, { key: 'task-1' }))).toEqual(ids(s.order(pool, { key: 'task-1' })));
  });

  it('splits keys roughly evenly (virtual nodes)', () => {
    const s = new ConsistentHashStrategy();
    const count = new Map<string, number>();
    for (const key of keys) {
      const id = s.order(pool, { key })[0].id;
      count.set(id, (count.get(id) ?? 0) + 1);
    }
    for (const c of count.values()) {
      expect(c).toBeGreaterThan(1000 * 0.7);
      expect(c).toBeLessThan(1000 * 1.3);
    }
  });

  it.each([
    ['goes DOWN', (leaving: string) => pool.map((c) => (c.id === leaving ? ex(c.id, 'DOWN') : c))],
    ['is removed from the list', (leaving: string) => pool.filter((c) => c.id !== leaving)],
  ])('when one executor %s, only its keys move — each to its old second choice', (_how, without) => {
    const s = new ConsistentHashStrategy();
    const before = new Map(keys.map((key) => [key, ids(s.order(pool, { key }))]));
    const leaving = 'exec-3';
    const after = without(leaving);
    let moved = 0;
    for (const key of keys) {
      const old = before.get(key) as string[];
      const now = ids(s.order(after, { key }));
      if (old[0] === leaving) {
        moved++;
        expect(now[0]).toBe(old[1]);
      } else {
        expect(now[0]).toBe(old[0]);
      }
      expect(now).toEqual(old.filter((id) => id !== leaving)); // the whole fallback order is stable too
    }
    expect(moved).toBeGreaterThan(500);
  });

  it('when an executor joins, keys only move to the newcomer', () => {
    const s = new ConsistentHashStrategy();
    const before = new Map(keys.map((key) => [key, s.order(pool, { key })[0].id]));
    const grown = [...pool, ex('exec-new')];
    let moved = 0;
    for (const key of keys) {
      const now = s.order(grown, { key })[0].id;
      if (now !== before.get(key)) {
        expect(now).toBe('exec-new');
        moved++;
      }
    }
    expect(moved).toBeGreaterThan(500);
    expect(moved).toBeLessThan(1500);
  });

  it('needs a key', () => {
    expect(() => new ConsistentHashStrategy().order(pool)).toThrow(TypeError);
  });
});
