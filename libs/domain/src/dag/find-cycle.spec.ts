import { describe, expect, it } from 'vitest';
import type { DependencyEdge } from '../types';
import { CycleError } from './cycle-error';
import { assertNoCycle, findCycle } from './find-cycle';

const edge = (parent: string, child: string): DependencyEdge => ({ parent, child, condition: 'ON_SUCCESS' });
const chain = (...names: string[]) => names.slice(1).map((child, i) => edge(names[i], child));

describe('findCycle', () => {
  it('finds none when the new edge keeps the graph acyclic', () => {
    expect(findCycle(chain('a', 'b', 'c'), edge('a', 'c'))).toBeNull(); // a shortcut, not a cycle
    expect(findCycle(chain('a', 'b', 'c'), edge('c', 'd'))).toBeNull();
    expect(findCycle([], edge('a', 'b'))).toBeNull();
    expect(findCycle(chain('a', 'b'), edge('a', 'b'))).toBeNull(); // a duplicate edge is not a cycle
  });

  it('names the cycle a new edge closes, in order, starting at its child', () => {
    expect(findCycle(chain('a', 'b', 'c'), edge('c', 'a'))).toEqual(['a', 'b', 'c', 'a']);
  });

  it('treats a self-edge as a cycle', () => {
    expect(findCycle([], edge('a', 'a'))).toEqual(['a', 'a']);
  });

  it('finds a two-node cycle', () => {
    expect(findCycle(chain('a', 'b'), edge('b', 'a'))).toEqual(['a', 'b', 'a']);
  });

  it('finds a long cycle', () => {
    const names = Array.from({ length: 200 }, (_, i) => `t${i}`);
    const cycle = findCycle(chain(...names), edge('t199', 't0'));
    expect(cycle).toEqual([...names, 't0']);
  });

  it('names a shortest cycle when there are several, deterministically', () => {
    // a → b → c → d and a → d; adding d → a closes a → d → a (short) and a → b → c → d → a.
    const edges = [...chain('a', 'b', 'c', 'd'), edge('a', 'd')];
    expect(findCycle(edges, edge('d', 'a'))).toEqual(['a', 'd', 'a']);
    expect(findCycle(edges, edge('d', 'a'))).toEqual(findCycle([...edges], edge('d', 'a')));
  });

  it('finds a cycle through a diamond and ignores unrelated parts of the graph', () => {
    const edges = [edge('a', 'b'), edge('a', 'c'), edge('b', 'd'), edge('c', 'd'), edge('x', 'y'), edge('y', 'z')];
    expect(findCycle(edges, edge('d', 'a'))).toEqual(['a', 'b', 'd', 'a']);
    expect(findCycle(edges, edge('z', 'a'))).toBeNull();
  });

  it('copes with a large fan-out without revisiting nodes', () => {
    const edges = Array.from({ length: 2_000 }, (_, i) => edge('root', `leaf${i}`)).concat(edge('leaf1999', 'end'));
    expect(findCycle(edges, edge('end', 'root'))).toEqual(['root', 'leaf1999', 'end', 'root']);
  });
});

describe('assertNoCycle / CycleError', () => {
  it('throws a CycleError with the cycle, a stable code and a readable message', () => {
    try {
      assertNoCycle(chain('a', 'b', 'c'), edge('c', 'a'));
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(CycleError);
      const err = e as CycleError;
      expect(err.code).toBe('DEPENDENCY_CYCLE');
      expect(err.cycle).toEqual(['a', 'b', 'c', 'a']);
      expect(err.message).toBe('Dependency cycle: a → b → c → a');
    }
  });

  it('passes silently when there is no cycle', () => {
    expect(() => assertNoCycle(chain('a', 'b'), edge('b', 'c'))).not.toThrow();
  });
});
