import type { DependencyEdge } from '../types';
import { CycleError } from './cycle-error';

/**
 * The cycle that adding `newEdge` to the (acyclic) `edges` would close, or null.
 *
 * A cycle through parent → child exists exactly when the child already reaches the parent.
 * The path is found breadth-first, so the cycle named is a shortest one, and neighbours are
 * visited in edge order, so the same graph always names the same cycle. The result starts at
 * the new edge's child: for edges a → b, b → c and new edge c → a it is ['a', 'b', 'c', 'a'].
 * A self-edge a → a is the cycle ['a', 'a'].
 */
export function findCycle(edges: readonly DependencyEdge[], newEdge: Pick<DependencyEdge, 'parent' | 'child'>): string[] | null {
  const { parent, child } = newEdge;
  if (parent === child) return [child, child];

  const next = new Map<string, string[]>();
  for (const edge of edges) {
    const list = next.get(edge.parent);
    if (list) list.push(edge.child);
    else next.set(edge.parent, [edge.child]);
  }

  // came.get(x) is the node x was reached from; the child is the root.
  const came = new Map<string, string | null>([[child, null]]);
  const queue: string[] = [child];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head];
    for (const to of next.get(node) ?? []) {
      if (came.has(to)) continue;
      came.set(to, node);
      if (to === parent) return [...pathTo(came, parent), child];
      queue.push(to);
    }
  }
  return null;
}

/** Throws CycleError naming the cycle when adding `newEdge` would close one. */
export function assertNoCycle(edges: readonly DependencyEdge[], newEdge: Pick<DependencyEdge, 'parent' | 'child'>): void {
  const cycle = findCycle(edges, newEdge);
  if (cycle) throw new CycleError(cycle);
}

function pathTo(came: Map<string, string | null>, end: string): string[] {
  const path: string[] = [];
  for (let node: string | null = end; node !== null; node = came.get(node) ?? null) path.push(node);
  return path.reverse();
}
