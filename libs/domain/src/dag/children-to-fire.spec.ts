import { describe, expect, it } from 'vitest';
import type { DependencyCondition, DependencyEdge } from '../types';
import { childrenToFire, childStatus, satisfiesCondition } from './children-to-fire';
import type { ParentOutcome } from './children-to-fire';

const on = (condition: DependencyCondition) => (parent: string, child: string): DependencyEdge => ({ parent, child, condition });
const success = on('ON_SUCCESS');
const failure = on('ON_FAILURE');
const completion = on('ON_COMPLETION');
const none = new Map<string, ParentOutcome>();
const OUTCOMES: ParentOutcome[] = ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED'];

describe('satisfiesCondition', () => {
  it.each([
    ['ON_SUCCESS', ['SUCCEEDED']],
    ['ON_FAILURE', ['FAILED', 'TIMED_OUT']],
    ['ON_COMPLETION', ['SUCCEEDED', 'FAILED', 'TIMED_OUT']],
  ] as const)('%s is satisfied by exactly %j', (condition, satisfied) => {
    for (const outcome of OUTCOMES) {
      expect(satisfiesCondition(condition, outcome)).toBe((satisfied as readonly string[]).includes(outcome));
    }
  });
});

describe('childrenToFire', () => {
  it('fires the next step of a chain on success only', () => {
    const edges = [success('a', 'b'), success('b', 'c')];
    expect(childrenToFire(edges, 'a', 'SUCCEEDED', none)).toEqual(['b']);
    expect(childrenToFire(edges, 'a', 'FAILED', none)).toEqual([]);
    expect(childrenToFire(edges, 'b', 'SUCCEEDED', new Map([['a', 'SUCCEEDED']]))).toEqual(['c']);
    expect(childrenToFire(edges, 'c', 'SUCCEEDED', none)).toEqual([]); // a leaf
  });

  it('fans out to every child of the parent, in edge order, each once', () => {
    const edges = [success('a', 'c'), success('a', 'b'), success('x', 'y'), completion('a', 'c')];
    expect(childrenToFire(edges, 'a', 'SUCCEEDED', none)).toEqual(['c', 'b']);
  });

  it('makes a fan-in wait for all parents (diamond)', () => {
    const edges = [success('a', 'b'), success('a', 'c'), success('b', 'd'), success('c', 'd')];
    expect(childrenToFire(edges, 'a', 'SUCCEEDED', none)).toEqual(['b', 'c']);
    // b finishes first: d still waits for c.
    expect(childrenToFire(edges, 'b', 'SUCCEEDED', new Map([['a', 'SUCCEEDED']]))).toEqual([]);
    // c finishes last: now d fires.
    const finished = new Map<string, ParentOutcome>([
      ['a', 'SUCCEEDED'],
      ['b', 'SUCCEEDED'],
    ]);
    expect(childrenToFire(edges, 'c', 'SUCCEEDED', finished)).toEqual(['d']);
  });

  it('never fires a fan-in child whose other parent did not satisfy its edge', () => {
    const edges = [success('b', 'd'), success('c', 'd')];
    expect(childrenToFire(edges, 'c', 'SUCCEEDED', new Map([['b', 'FAILED']]))).toEqual([]);
  });

  it('applies each edge its own condition in a fan-in', () => {
    const edges = [success('b', 'd'), failure('c', 'd')];
    expect(childrenToFire(edges, 'c', 'FAILED', new Map([['b', 'SUCCEEDED']]))).toEqual(['d']);
    expect(childrenToFire(edges, 'c', 'TIMED_OUT', new Map([['b', 'SUCCEEDED']]))).toEqual(['d']);
    expect(childrenToFire(edges, 'c', 'SUCCEEDED', new Map([['b', 'SUCCEEDED']]))).toEqual([]);
  });

  it('fires ON_FAILURE children on failure or timeout, and ON_COMPLETION children on anything but cancel', () => {
    const edges = [failure('a', 'alert'), completion('a', 'cleanup'), success('a', 'next')];
    expect(childrenToFire(edges, 'a', 'SUCCEEDED', none)).toEqual(['cleanup', 'next']);
    expect(childrenToFire(edges, 'a', 'FAILED', none)).toEqual(['alert', 'cleanup']);
    expect(childrenToFire(edges, 'a', 'TIMED_OUT', none)).toEqual(['alert', 'cleanup']);
    expect(childrenToFire(edges, 'a', 'CANCELLED', none)).toEqual([]);
  });

  it("takes the finishing parent's outcome from parentOutcome, over a stale map entry", () => {
    const edges = [success('a', 'b')];
    expect(childrenToFire(edges, 'a', 'SUCCEEDED', new Map([['a', 'FAILED']]))).toEqual(['b']);
  });
});

describe('childStatus', () => {
  const edges = [success('p1', 'c'), failure('p2', 'c')];

  it('is WAITING until every parent has finished', () => {
    expect(childStatus(edges, 'c', none)).toBe('WAITING');
    expect(childStatus(edges, 'c', new Map([['p1', 'SUCCEEDED']]))).toBe('WAITING');
  });

  it('is READY when every parent satisfied its edge', () => {
    expect(childStatus(edges, 'c', new Map<string, ParentOutcome>([['p1', 'SUCCEEDED'], ['p2', 'FAILED']]))).toBe('READY');
  });

  it('is NEVER as soon as one finished parent failed its edge, even while others run', () => {
    expect(childStatus(edges, 'c', new Map([['p2', 'SUCCEEDED']]))).toBe('NEVER');
  });

  it('is READY for a task with no parents (nothing to wait for)', () => {
    expect(childStatus(edges, 'orphan', none)).toBe('READY');
  });
});
