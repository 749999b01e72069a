import type { EntityManager } from 'typeorm';
import type { ApprovalGate, DependencyCondition } from '@baton/domain';
import { execute, num } from '../sql';

export interface DependencyEdgeRow {
  parentTaskId: number;
  childTaskId: number;
  condition: DependencyCondition;
  /** The edge's approval step (the child's run waits for a person); null: none. */
  approval: ApprovalGate | null;
}

/**
 * Every edge INTO the children of a task — what childrenToFire needs to decide fan-in:
 *
 *   SELECT parent_task_id, child_task_id, `condition`, approval FROM task_dependencies
 *    WHERE tenant_id = ? AND child_task_id IN (SELECT child_task_id FROM task_dependencies WHERE parent_task_id = ?)
 *
 * The inner set is a range on uq_task_dependencies_edge (parent, child), the outer one uses
 * ix_task_dependencies_child; a task without children costs one empty index probe. Scoped by
 * tenant (edges never cross tenants, this keeps it so).
 */
export async function findDependencyEdges(manager: EntityManager, tenantId: string, parentTaskId: number): Promise<DependencyEdgeRow[]> {
  const { rows } = await execute<Record<string, unknown>>(
    manager,
    `SELECT parent_task_id, child_task_id, \`condition\` AS cond, approval FROM task_dependencies
      WHERE tenant_id = ? AND child_task_id IN (SELECT child_task_id FROM task_dependencies WHERE parent_task_id = ?)
      ORDER BY id`,
    [tenantId, parentTaskId],
  );
  return rows.map((r) => ({ parentTaskId: num(r.parent_task_id), childTaskId: num(r.child_task_id), condition: r.cond as DependencyCondition,
    approval: r.approval === null || r.approval === undefined ? null : (JSON.parse(String(r.approval)) as ApprovalGate),
  }));
}
