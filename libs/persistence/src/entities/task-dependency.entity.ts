import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { ApprovalGate, DependencyCondition } from '@baton/domain';
import { millis, nullableJson } from './columns';

/** An edge of a tenant's dependency DAG: the child fires after the parent, per condition. */
@Entity({ name: 'task_dependencies' })
@Index('uq_task_dependencies_edge', ['parentTaskId', 'childTaskId'], { unique: true })
@Index('ix_task_dependencies_child', ['childTaskId'])
@Index('ix_task_dependencies_tenant', ['tenantId'])
export class TaskDependencyEntity {
  @PrimaryGeneratedColumn({ type: 'int' })
  id!: number;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  @Column({ name: 'parent_task_id', type: 'int' })
  parentTaskId!: number;

  @Column({ name: 'child_task_id', type: 'int' })
  childTaskId!: number;

  @Column({ type: 'varchar', length: 16 })
  condition!: DependencyCondition;

  /** The approval step on the edge (JSON): the child's run waits for a person; null, the default: it fires at once. */
  @Column({ type: 'text', nullable: true, transformer: nullableJson })
  approval!: ApprovalGate | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: millis })
  createdAt!: number;
}
