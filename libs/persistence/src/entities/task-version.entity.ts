import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { json, millis, type StoredJson } from './columns';

/** A task's definition as one change left it (migration 1796620000001-task-versions). */
@Entity({ name: 'task_versions' })
@Index('uq_task_versions_task', ['taskId', 'version'], { unique: true })
export class TaskVersionEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: number;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  @Column({ name: 'task_id', type: 'int' })
  taskId!: number;

  /** The task's `version` after the change. */
  @Column({ type: 'int' })
  version!: number;

  @Column({ type: 'bigint', transformer: millis })
  at!: number;

  /** Who made the change (the audit log's actor name); null when made outside a request (seeding). */
  @Column({ name: 'actor_name', type: 'varchar', length: 200, nullable: true })
  actorName!: string | null;

  /** The TaskDefinition (calendar by name), as JSON. */
  @Column({ type: 'text', transformer: json })
  definition!: StoredJson;
}
