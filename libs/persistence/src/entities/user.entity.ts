import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { Role } from '@baton/domain';
import { millis } from './columns';

/**
 * A console login. Operators have no tenant; tenant admins and viewers have exactly one. A name
 * is unique within its tenant (and among the operators), so no tenant can learn which names
 * another tenant uses; a login names its tenant.
 */
@Entity({ name: 'users' })
@Index('uq_users_login', ['loginTenant', 'username'], { unique: true })
@Index('uq_users_sso', ['ssoProvider', 'ssoSubject'], { unique: true })
export class UserEntity {
  @PrimaryGeneratedColumn({ type: 'int' })
  id!: number;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64, nullable: true })
  tenantId!: string | null;

  /**
   * The tenant a login names: `tenantId`, or '' for an operator. The unique key and the login
   * lookup use it rather than `tenantId` because unique indexes let NULLs repeat (on MySQL and
   * SQLite alike), which would let two operators share a name.
   */
  @Column({ name: 'login_tenant', type: 'varchar', length: 64 })
  loginTenant!: string;

  @Column({ type: 'varchar', length: 100 })
  username!: string;

  /** bcrypt hash. */
  @Column({ name: 'password_hash', type: 'varchar', length: 100 })
  passwordHash!: string;

  @Column({ type: 'varchar', length: 16 })
  role!: Role;

  /** A disabled user cannot log in, and its sessions stop working. Default false. */
  @Column({ type: 'boolean', default: false })
  disabled!: boolean;

  /** Console language (`en`, `zh-CN`); null: the browser's. */
  @Column({ type: 'varchar', length: 16, nullable: true })
  language!: string | null;

  /** Display time zone (IANA); null: the browser's. */
  @Column({ name: 'time_zone', type: 'varchar', length: 64, nullable: true })
  timeZone!: string | null;

  /** `light` or `dark`; null: the browser's. */
  @Column({ type: 'varchar', length: 8, nullable: true })
  theme!: string | null;

  /**
   * The single sign-on method that provisioned this user (`oidc`, `ldap`), or null for a user with
   * a password. Such a user has no usable password: it signs in only through its provider, which
   * sets its tenant and role at each sign-in.
   */
  @Column({ name: 'sso_provider', type: 'varchar', length: 16, nullable: true })
  ssoProvider!: string | null;

  /** The provider's stable id of the user (OIDC `sub`; LDAP: its entry's DN as the directory holds it, lower-cased); null without a provider. */
  @Column({ name: 'sso_subject', type: 'varchar', length: 255, nullable: true })
  ssoSubject!: string | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: millis })
  createdAt!: number;
}
