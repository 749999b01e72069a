import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { keyRolesBeyond, type Role } from '@baton/domain';
import { deleteUser, endUserSessions, findLoginUser, findUser, insertUser, inTransaction, isUniqueViolation, listUsers, revokeOwnerKeys, tenantExists, updateUser, UserEntity } from '@baton/persistence';
import { badRequest, conflict, FieldError, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { AuthService } from '../auth/auth.service';
import { refuseApiKeyPasswordChange } from '../auth/password-change-by-person';
import type { Principal } from '../common/principal';
import { auditChange } from '../audit';
import { UpdateUserDto, UserView } from './dto/user.dto';

export function userView(row: UserEntity): UserView {
  // Boolean(): after an insert on MySQL, TypeORM writes the column's default back as the raw TINYINT 0.
  return { id: row.id, username: row.username, role: row.role, tenantId: row.tenantId, disabled: Boolean(row.disabled), createdAt: row.createdAt };
}

export interface NewUser {
  username: string;
  password: string;
  role: Role;
  tenantId?: string | null;
}

/**
 * Which users a caller manages: an operator every user (`tenantId` undefined), a tenant admin
 * those of its own tenant. Another tenant's user is a 404, as if it did not exist.
 */
export interface UserScope {
  tenantId?: string;
  /** The user the caller acts for (a session's user, an API key's owner; null: a key with no owner): it cannot disable, demote or delete itself. */
  actingUserId: number | null;
}

/** Who sets a password: a session or an API key (refused), its client address (a wrong current password counts against it) and its session (kept when it sets its own). */
export interface PasswordCaller {
  kind: Principal['kind'];
  address: string;
  sessionId: number | null;
}

/** Field paths of a user's credentials in errors: `username`, or `admin.username` inside a tenant. */
export type CredentialFields = { username: string };

@Injectable()
export class UsersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly auth: AuthService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async list(tenantId?: string): Promise<UserView[]> {
    return (await listUsers(this.dataSource.manager, tenantId)).map(userView);
  }

  async create(input: NewUser): Promise<UserView> {
    const tenantId = input.tenantId ?? null;
    if (input.role === 'OPERATOR' && tenantId !== null) {
      throw badRequest([{ field: 'tenantId', reason: 'an OPERATOR has no tenant' }]);
    }
    if (input.role !== 'OPERATOR') {
      if (tenantId === null) throw badRequest([{ field: 'tenantId', reason: `is required for role ${input.role}` }]);
      if (!(await tenantExists(this.dataSource.manager, tenantId))) {
        throw badRequest([{ field: 'tenantId', reason: `no tenant "${tenantId}"` }]);
      }
    }
    const row = await this.newRow({ ...input, tenantId });
    await inTransaction(this.dataSource, async (em) => {
      await this.insert(em, row);
      await auditChange(em, { tenantId, objectType: 'user', objectId: row.id, after: userView(row) });
    });
    return userView(row);
  }

  /**
   * A user row ready to insert: the password hashed (slow on purpose, so done before any
   * transaction is open).
   */
  async newRow(input: NewUser): Promise<UserEntity> {
    const tenantId = input.tenantId ?? null;
    return Object.assign(new UserEntity(), {
      username: input.username,
      passwordHash: await this.auth.hashPassword(input.password),
      role: input.role,
      tenantId,
      loginTenant: tenantId ?? '',
      disabled: false,
      createdAt: this.clock.now(),
    });
  }

  /**
   * Inserts a row from newRow in the caller's transaction. A name is unique within its tenant
   * (among the operators for an operator) only, so the 409 naming `fields.username` tells the
   * caller of a name it can list anyway, never of another tenant's.
   */
  async insert(em: EntityManager, row: UserEntity, fields: CredentialFields = { username: 'username' }): Promise<void> {
    const duplicate = () => conflict(`User "${row.username}" already exists`, [{ field: fields.username, reason: 'already exists' }]);
    if (await findLoginUser(em, row.loginTenant, row.username)) throw duplicate();
    try {
      await insertUser(em, row);
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicate();
      throw error;
    }
  }

  /**
   * Creates the user unless its tenant (or the operators) has one of that name (seeding, bootstrap).
   * True when created. Several consoles starting together may race to create the same bootstrap
   * user: the one that loses finds it made by the other, which is as good.
   */
  async ensure(input: NewUser): Promise<boolean> {
    const exists = async () => (await findLoginUser(this.dataSource.manager, input.tenantId ?? '', input.username)) !== null;
    if (await exists()) return false;
    try {
      await this.create(input);
    } catch (error) {
      if (await exists()) return false;
      throw error;
    }
    return true;
  }

  /**
   * Changes a user's role (between the tenant roles: an OPERATOR stays one, a tenant user never
   * becomes one) and/or disables or enables it. Disabling ends the user's sessions, and disabling
   * or demoting revokes its API keys it may no longer hold, in the same transaction. Nobody
   * demotes or disables themselves (no lock-out by mistake).
   */
  async update(id: number, dto: UpdateUserDto, scope: UserScope): Promise<UserView> {
    return inTransaction(this.dataSource, async (em) => {
      const row = await this.findInScope(em, id, scope);
      const before = userView(row);
      const errors: FieldError[] = [];
      if (dto.role !== undefined && dto.role !== row.role) {
        if (row.role === 'OPERATOR') errors.push({ field: 'role', reason: 'an OPERATOR stays an OPERATOR (create a tenant user instead)' });
        else if (id === scope.actingUserId) errors.push({ field: 'role', reason: 'you cannot change your own role' });
      }
      if (dto.disabled === true && id === scope.actingUserId) errors.push({ field: 'disabled', reason: 'you cannot disable yourself' });
      if (errors.length > 0) throw badRequest(errors);
      if (dto.role !== undefined) row.role = dto.role;
      if (dto.disabled !== undefined) row.disabled = dto.disabled;
      await updateUser(em, id, { role: row.role, disabled: row.disabled });
      if (row.disabled) await endUserSessions(em, id);
      const revokedApiKeyIds = await revokeOwnerKeys(em, { ownerUserId: id, roles: keyRolesBeyond(row), now: this.clock.now() });
      // The keys the change revoked are part of it: named in its record (the only one a request writes).
      await auditChange(em, { tenantId: row.tenantId, objectType: 'user', objectId: id, before, after: revokedApiKeyIds.length > 0 ? { ...userView(row), revokedApiKeyIds } : userView(row) });
      return userView(row);
    });
  }

  /**
   * An administrator, in a session, sets a user's password; the user's sessions end (it logs in
   * with the new one). Its own password only with the current one, as POST /api/auth/password has
   * it (AuthService.proveOwnPassword), and the calling session stays. An API key is refused,
   * another user's password as its owner's (refuseApiKeyPasswordChange).
   */
  async resetPassword(id: number, body: { password: string; currentPassword?: string }, scope: UserScope, caller: PasswordCaller): Promise<void> {
    refuseApiKeyPasswordChange(caller);
    const own = id === scope.actingUserId;
    if (own) await this.auth.proveOwnPassword(await this.findInScope(this.dataSource.manager, id, scope), body.currentPassword, caller.address);
    const passwordHash = await this.auth.hashPassword(body.password);
    await inTransaction(this.dataSource, async (em) => {
      const row = await this.findInScope(em, id, scope);
      await updateUser(em, id, { passwordHash });
      await endUserSessions(em, id, own ? caller.sessionId : null);
      await auditChange(em, { tenantId: row.tenantId, objectType: 'user', objectId: id, after: { passwordChanged: true } });
    });
  }

  /** Deletes a user, its sessions and (revoked) its API keys. Operators cannot delete themselves (no lock-out by mistake). */
  async delete(id: number, actingUserId: number | null): Promise<void> {
    if (id === actingUserId) throw conflict('You cannot delete yourself', [{ field: 'id', reason: 'is the calling user' }]);
    await inTransaction(this.dataSource, async (em) => {
      const row = await findUser(em, undefined, id);
      if (!row) throw notFound('User', id);
      await endUserSessions(em, id);
      const revokedApiKeyIds = await revokeOwnerKeys(em, { ownerUserId: id, roles: keyRolesBeyond(null), now: this.clock.now() });
      await deleteUser(em, id);
      await auditChange(em, { tenantId: row.tenantId, objectType: 'user', objectId: id, before: userView(row), ...(revokedApiKeyIds.length > 0 ? { after: { revokedApiKeyIds } } : {}) });
    });
  }

  private async findInScope(em: EntityManager, id: number, scope: UserScope): Promise<UserEntity> {
    const row = await findUser(em, scope.tenantId, id);
    if (!row) throw notFound('User', id);
    return row;
  }
}
