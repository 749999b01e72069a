import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { ApprovalOutcome, ApproverRole } from '@baton/domain';
import { bigintId, json, millis } from './columns';

/**
 * A run waiting for a person (runs.state APPROVAL_WAIT, fired by an edge with an approval gate):
 * who may decide, until when, what the deadline decides, and the decision once made.
 */
@Entity({ name: 'run_approvals' })
// The engines' sweep (find-due-approvals): the rows due now — undecided past their deadline, or
// rejected by a person and not yet ended — a range however many runs wait. Rewritten twice a row.
@Index('ix_run_approvals_due', ['dueAt'])
export class RunApprovalEntity {
  @PrimaryColumn({ name: 'run_id', type: 'bigint', transformer: bigintId })
  runId!: number;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  /** Users of at least this role may decide; null: only `users`. */
  @Column({ type: 'varchar', length: 16, nullable: true })
  role!: ApproverRole | null;

  /** Usernames that may decide (JSON list). */
  @Column({ type: 'text', transformer: json })
  users!: string[];

  @Column({ name: 'on_timeout', type: 'varchar', length: 8 })
  onTimeout!: ApprovalOutcome;

  @Column({ name: 'deadline_at', type: 'bigint', transformer: millis })
  deadlineAt!: number;

  /** When an engine must act on the row (the deadline; a person's rejection at once); null: nothing left to do. */
  @Column({ name: 'due_at', type: 'bigint', nullable: true, transformer: millis })
  dueAt!: number | null;

  /** Null while nobody (and no deadline) has decided. */
  @Column({ type: 'varchar', length: 8, nullable: true })
  decision!: ApprovalOutcome | null;

  /** The username (or `api-key:<name>`) that decided; null when the deadline did. */
  @Column({ name: 'decided_by', type: 'varchar', length: 128, nullable: true })
  decidedBy!: string | null;

  @Column({ name: 'decided_at', type: 'bigint', nullable: true, transformer: millis })
  decidedAt!: number | null;

  @Column({ type: 'varchar', length: 1000, nullable: true })
  comment!: string | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: millis })
  createdAt!: number;
}
