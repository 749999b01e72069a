import type { DependencyCondition } from '@baton/domain/types';

/** An edge: the child task runs when a run of the parent ends as `condition` says. */
export interface Dependency {
  id: number;
  parentTaskId: number;
  parentName: string;
  childTaskId: number;
  childName: string;
  condition: DependencyCondition;
  createdAt: number;
}
