import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { json, millis, type StoredJson } from './columns';

/** Who made a change: a logged-in user, an API key, nobody yet (a failed login), or a third party's signed delivery to an inbound webhook. */
/** Who made a change: a person (`user`), an API key, nobody logged in, an inbound webhook's delivery, or an engine (an approval's deadline deciding). */
export type AuditActorKind = 'user' | 'apiKey' | 'anonymous' | 'inboundWebhook' | 'engine';

/**
 * One change made through the console API (migration 1796620000000-audit-log). Append-only:
 * written by insertAuditRecords in the change's transaction, read by the audit queries, deleted
 * only by the retention purge.
 */
@Entity({ name: 'audit_log' })
@Index('ix_audit_tenant_time', ['tenantId', 'at', 'id'])
@Index('ix_audit_tenant_actor', ['tenantId', 'actorName', 'at', 'id'])
@Index('ix_audit_tenant_object', ['tenantId', 'objectType', 'objectId', 'at', 'id'])
@Index('ix_audit_tenant_action', ['tenantId', 'action', 'at', 'id'])
@Index('ix_audit_at', ['at', 'id'])
export class AuditRecordEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: number;

  @Column({ type: 'bigint', transformer: millis })
  at!: number;

  /** Null: an operator's change that belongs to no tenant (an engine group). */
  @Column({ name: 'tenant_id', type: 'varchar', length: 64, nullable: true })
  tenantId!: string | null;

  @Column({ name: 'actor_kind', type: 'varchar', length: 16 })
  actorKind!: AuditActorKind;

  /** Username, `api-key:<name>`, or the name a failed login gave. */
  @Column({ name: 'actor_name', type: 'varchar', length: 200 })
  actorName!: string;

  @Column({ name: 'actor_user_id', type: 'int', nullable: true })
  actorUserId!: number | null;

  @Column({ name: 'actor_api_key_id', type: 'int', nullable: true })
  actorApiKeyId!: number | null;

  @Column({ name: 'source_address', type: 'varchar', length: 64, nullable: true })
  sourceAddress!: string | null;

  /** `<object>.<verb>`, e.g. `task.update`, `auth.login-failed`. */
  @Column({ type: 'varchar', length: 64 })
  action!: string;

  @Column({ name: 'object_type', type: 'varchar', length: 32 })
  objectType!: string;

  @Column({ name: 'object_id', type: 'varchar', length: 128, nullable: true })
  objectId!: string | null;

  /** The object before and after the change, secrets redacted; null where there is none (a create's before). */
  @Column({ name: 'before_json', type: 'text', nullable: true, transformer: json })
  before!: StoredJson | null;

  @Column({ name: 'after_json', type: 'text', nullable: true, transformer: json })
  after!: StoredJson | null;
}
