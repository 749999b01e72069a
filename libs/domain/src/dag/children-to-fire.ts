import type { DependencyCondition, DependencyEdge } from '../types';

/** How a parent's run in a flow ended, as far as its children care. */
export type ParentOutcome = 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'CANCELLED';

/**
 * Whether an outcome satisfies an edge's condition:
 * - ON_SUCCESS: SUCCEEDED.
 * - ON_FAILURE: FAILED or TIMED_OUT (a timeout is a failure of the work).
 * - ON_COMPLETION: any outcome but CANCELLED. Cancelling is a person (or REPLACE) stopping
 *   the flow on purpose, so it must not set the rest of the flow off.
 */
export function satisfiesCondition(condition: DependencyCondition, outcome: ParentOutcome): boolean {
  switch (condition) {
    case 'ON_SUCCESS':
      return outcome === 'SUCCEEDED';
    case 'ON_FAILURE':
      return outcome === 'FAILED' || outcome === 'TIMED_OUT';
    case 'ON_COMPLETION':
      return outcome !== 'CANCELLED';
  }
}

/**
 * A child's standing in a flow:
 * - READY: every parent has finished and satisfied its edge;
 * - WAITING: no parent has ruled it out, but some have not finished;
 * - NEVER: a finished parent did not satisfy its edge, so the child cannot fire in this flow.
 */
export type ChildStatus = 'READY' | 'WAITING' | 'NEVER';

/**
 * Where a child stands, given the outcomes of its parents' runs in the flow.
 * Should there be several edges between one parent and the child, any satisfied one is enough.
 */
export function childStatus(
  edges: readonly DependencyEdge[],
  child: string,
  outcomes: ReadonlyMap<string, ParentOutcome>,
): ChildStatus {
  const byParent = new Map<string, DependencyCondition[]>();
  for (const edge of edges) {
    if (edge.child !== child) continue;
    byParent.set(edge.parent, [...(byParent.get(edge.parent) ?? []), edge.condition]);
  }
  let waiting = false;
  for (const [parent, conditions] of byParent) {
    const outcome = outcomes.get(parent);
    if (outcome === undefined) waiting = true;
    else if (!conditions.some((c) => satisfiesCondition(c, outcome))) return 'NEVER';
  }
  return waiting ? 'WAITING' : 'READY';
}

/**
 * The children that `parentTask`'s finished run fires now: those whose every incoming edge is
 * satisfied by the outcomes in the flow (fan-in waits for all parents). `finishedParentsInFlow`
 * holds the outcomes of the flow's other finished runs; the parent's own outcome is taken from
 * `parentOutcome`. Children come in edge order, each once.
 *
 * When two parents of a fan-in finish at the same moment, both calls may see the other as
 * finished and both name the child; the run's fire key (one dependency run per child and
 * flow) makes the second insert a no-op.
 */
export function childrenToFire(
  edges: readonly DependencyEdge[],
  parentTask: string,
  parentOutcome: ParentOutcome,
  finishedParentsInFlow: ReadonlyMap<string, ParentOutcome>,
): string[] {
  const outcomes = new Map(finishedParentsInFlow).set(parentTask, parentOutcome);
  const children: string[] = [];
  for (const edge of edges) {
    if (edge.parent !== parentTask || children.includes(edge.child)) continue;
    if (childStatus(edges, edge.child, outcomes) === 'READY') children.push(edge.child);
  }
  return children;
}
