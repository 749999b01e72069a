import type { ApprovalGate, DependencyCondition } from '@baton/domain/types';

/** An edge: the child task runs when a run of the parent ends as `condition` says. */
export interface Dependency {
  id: number;
  parentTaskId: number;
  parentName: string;
  childTaskId: number;
  childName: string;
  condition: DependencyCondition;
  /** The edge's approval step: the child's run waits for a person's decision; null: it fires at once. */
  approval: ApprovalGate | null;
  createdAt: number;
}
