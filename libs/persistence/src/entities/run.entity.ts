import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { RunCause, RunState } from '@baton/domain';
import { StoredJson, bigintId, json, millis } from './columns';

/**
 * One fire of a task, written before anything is sent and moved through the run state
 * machine only by conditional updates that name the expected old state.
 */
@Entity({ name: 'runs' })
// What makes a duplicate fire impossible whatever the engines do: for a scheduled fire
// the fire key is its scheduled time, so this is the (task, scheduled time) key.
@Index('uq_runs_task_fire_key', ['taskId', 'fireKey'], { unique: true })
// The claim: "due runs of engine group G in state S, oldest due first".
@Index('ix_runs_claim', ['engineGroup', 'state', 'dueAt'])
// The console: "runs of tenant T by time", newest first, cursor-paginated on (scheduled_at, id).
@Index('ix_runs_tenant_time', ['tenantId', 'scheduledAt', 'id'])
@Index('ix_runs_task_time', ['taskId', 'scheduledAt'])
// Fan-in joins parents within a flow.
@Index('ix_runs_flow', ['flowId'])
export class RunEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: number;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  @Column({ name: 'task_id', type: 'int' })
  taskId!: number;

  @Column({ name: 'engine_group', type: 'varchar', length: 64 })
  engineGroup!: string;

  @Column({ type: 'varchar', length: 16 })
  state!: RunState;

  @Column({ type: 'varchar', length: 16 })
  cause!: RunCause;

  /** `s:<scheduled ms>` for scheduled fires, `m:<uuid>` for manual, `f:<flow id>` for dependency runs. */
  @Column({ name: 'fire_key', type: 'varchar', length: 64 })
  fireKey!: string;

  /** Root run of the flow this run belongs to; a root run's flow is its own id (set after insert). */
  @Column({ name: 'flow_id', type: 'bigint', nullable: true, transformer: bigintId })
  flowId!: number | null;

  /** The parent run whose end fired this one (DEPENDENCY runs). */
  @Column({ name: 'parent_run_id', type: 'bigint', nullable: true, transformer: bigintId })
  parentRunId!: number | null;

  @Column({ type: 'int', default: 1 })
  attempt!: number;

  @Column({ type: 'int', default: 0 })
  priority!: number;

  /** Params as they were when the run was made; later task edits do not change a run. */
  @Column({ type: 'text', transformer: json })
  params!: StoredJson;

  /** The nominal fire time; lateness is measured from here. */
  @Column({ name: 'scheduled_at', type: 'bigint', transformer: millis })
  scheduledAt!: number;

  /** When the run should next be dispatched: the fire time, or a retry's backoff end. */
  @Column({ name: 'due_at', type: 'bigint', transformer: millis })
  dueAt!: number;

  /** Engine node that holds the lease. */
  @Column({ name: 'claimed_by', type: 'varchar', length: 64, nullable: true })
  claimedBy!: string | null;

  @Column({ name: 'lease_until', type: 'bigint', nullable: true, transformer: millis })
  leaseUntil!: number | null;

  @Column({ name: 'executor_id', type: 'int', nullable: true })
  executorId!: number | null;

  @Column({ name: 'dispatched_at', type: 'bigint', nullable: true, transformer: millis })
  dispatchedAt!: number | null;

  @Column({ name: 'accepted_at', type: 'bigint', nullable: true, transformer: millis })
  acceptedAt!: number | null;

  /** When the handler started, as reported by the executor. */
  @Column({ name: 'started_at', type: 'bigint', nullable: true, transformer: millis })
  startedAt!: number | null;

  @Column({ name: 'finished_at', type: 'bigint', nullable: true, transformer: millis })
  finishedAt!: number | null;

  @Column({ name: 'result', type: 'text', nullable: true, transformer: json })
  result!: StoredJson;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  /** 0–100, as last reported by the handler. */
  @Column({ type: 'int', nullable: true })
  progress!: number | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: millis })
  createdAt!: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: millis })
  updatedAt!: number;
}
