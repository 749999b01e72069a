import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { Role } from '@baton/domain';
import { millis } from './columns';

/**
 * A tenant's API key. The key is 32 random bytes, so a plain SHA-256 is a safe hash
 * (no dictionary to attack) and lets a request be authenticated with one indexed lookup.
 */
@Entity({ name: 'api_keys' })
@Index('uq_api_keys_key_hash', ['keyHash'], { unique: true })
@Index('ix_api_keys_tenant', ['tenantId'])
@Index('ix_api_keys_owner', ['ownerUserId'])
export class ApiKeyEntity {
  @PrimaryGeneratedColumn({ type: 'int' })
  id!: number;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  /** The first characters of the key, shown in lists so a key can be recognised. */
  @Column({ type: 'varchar', length: 16 })
  prefix!: string;

  @Column({ name: 'key_hash', type: 'varchar', length: 64 })
  keyHash!: string;

  /**
   * The user who made the key: it works only while that user may hold its role, and is revoked
   * when the user is disabled, deleted or demoted below it. Null for keys made before owners
   * were recorded: they keep working until revoked, and cannot make keys.
   */
  @Column({ name: 'owner_user_id', type: 'int', nullable: true })
  ownerUserId!: number | null;

  /** TENANT_ADMIN or TENANT_VIEWER. */
  @Column({ type: 'varchar', length: 16 })
  role!: Role;

  @Column({ name: 'created_at', type: 'bigint', transformer: millis })
  createdAt!: number;

  @Column({ name: 'revoked_at', type: 'bigint', nullable: true, transformer: millis })
  revokedAt!: number | null;
}
