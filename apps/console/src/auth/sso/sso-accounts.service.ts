import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { accessForGroups, API_KEY_PRINCIPAL_PREFIX, keyRolesBeyond, type SsoAccess } from '@baton/domain';
import { endUserSessions, findSsoUser, insertUser, inTransaction, isUniqueViolation, revokeOwnerKeys, tenantExists, updateUser, UserEntity } from '@baton/persistence';
import { conflict, forbidden } from '../../common/api-error';
import { CLOCK, Clock } from '../../common/clock';
import { CONSOLE_OPTIONS, ResolvedConsoleOptions } from '../../common/options';
import { AuthService } from '../auth.service';
import type { LoginResponse } from '../dto/login.dto';

/** A user as its identity provider vouched for it at this sign-in. */
export interface SsoIdentity {
  provider: 'oidc' | 'ldap';
  /** The provider's stable id (OIDC `sub`; LDAP: the DN the directory holds the entry under, lower-cased). */
  subject: string;
  username: string;
  groups: string[];
}

/** The user after a sign-in kept it in step (null: none, and no access), and what changed (for the audit record). */
interface SignInOutcome {
  user: UserEntity | null;
  change: Record<string, unknown>;
}

/**
 * A single sign-on user cannot log in with a password: bcrypt never matches this (not a hash),
 * and AuthService.login compares such users against its dummy hash anyway.
 */
const NO_PASSWORD = '!sso';

/**
 * Users of both single sign-on methods: provisioned at their first sign-in, kept in step with
 * their groups at each one (`BATON_SSO_GROUP_MAP`). A user whose groups no longer map to any
 * access is disabled: its sessions end and its API keys are revoked, and an administrator must
 * enable it again (a disabled account is never re-enabled by a sign-in, so an administrator's
 * "disable" holds whatever the directory says).
 */
@Injectable()
export class SsoAccountsService {
  private readonly logger = new Logger('SSO');

  constructor(
    private readonly dataSource: DataSource,
    private readonly auth: AuthService,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONSOLE_OPTIONS) private readonly options: ResolvedConsoleOptions,
  ) {}

  /**
   * Signs in a user its provider vouched for, from `address`: one audit record either way, the
   * login (with what it changed of the user) or the failed login (with the reason).
   */
  async signIn(identity: SsoIdentity, address: string): Promise<LoginResponse> {
    const access = accessForGroups(this.options.sso.groupMap, identity.groups);
    let outcome: SignInOutcome | null = null;
    try {
      // A directory's name is any text, but `api-key:<name>` is how Baton names an API key acting:
      // a person signed in under it would decide the approval steps that name that key, and act in
      // the audit log under the key's name.
      if (identity.username.startsWith(API_KEY_PRINCIPAL_PREFIX)) {
        throw forbidden(`Your name "${identity.username}" starts with "${API_KEY_PRINCIPAL_PREFIX}", which Baton keeps for API keys: ask your administrator to rename you in the directory`);
      }
      outcome = await inTransaction(this.dataSource, (em) => this.keepInStep(em, identity, access));
      if (access === null) {
        this.logger.warn(`${identity.provider} sign-in of "${identity.username}" refused: none of its groups (${identity.groups.join(', ') || 'none'}) is in BATON_SSO_GROUP_MAP`);
        throw forbidden('None of your groups gives access to Baton: ask your administrator to add you to a mapped group');
      }
      if (outcome.user === null || outcome.user.disabled) throw forbidden(`Your Baton account "${identity.username}" is disabled: ask an administrator to enable it`);
    } catch (error) {
      const user = outcome?.user ?? null;
      await this.auth.auditFailedLogin(identity.username, address, {
        tenantId: user?.tenantId ?? access?.tenantId ?? null,
        userId: user?.id ?? null,
        after: { method: identity.provider, groups: identity.groups, reason: error instanceof Error ? error.message : String(error), ...outcome?.change },
      });
      throw error;
    }
    return this.auth.openSession(outcome.user, address, { method: identity.provider, ...outcome.change });
  }

  private async keepInStep(em: EntityManager, identity: SsoIdentity, access: SsoAccess | null): Promise<SignInOutcome> {
    const existing = await findSsoUser(em, identity.provider, identity.subject);
    if (access === null) {
      if (!existing || existing.disabled) return { user: existing, change: {} };
      await this.disable(em, existing);
      return { user: { ...existing, disabled: true }, change: { disabled: true } };
    }
    if (access.tenantId !== null && !(await tenantExists(em, access.tenantId))) {
      throw forbidden(`Your group "${access.group}" maps to tenant "${access.tenantId}", which does not exist: ask an operator to create it`);
    }
    const fields = { tenantId: access.tenantId, loginTenant: access.tenantId ?? '', username: identity.username, role: access.role };
    try {
      if (!existing) {
        const created = Object.assign(new UserEntity(), { ...fields, passwordHash: NO_PASSWORD, disabled: false, ssoProvider: identity.provider, ssoSubject: identity.subject, createdAt: this.clock.now() });
        await insertUser(em, created);
        return { user: created, change: { provisioned: { tenantId: fields.tenantId, role: fields.role } } };
      }
      if (existing.tenantId === fields.tenantId && existing.role === fields.role && existing.username === fields.username) return { user: existing, change: {} };
      await updateUser(em, existing.id, fields);
      // A user moved to another tenant keeps nothing of the old one; a demoted one loses what it may no longer hold.
      const moved = existing.tenantId !== fields.tenantId;
      if (moved || existing.role !== fields.role) await endUserSessions(em, existing.id);
      await revokeOwnerKeys(em, { ownerUserId: existing.id, roles: keyRolesBeyond(moved ? null : { role: fields.role, disabled: existing.disabled }), now: this.clock.now() });
      const was = { tenantId: existing.tenantId, role: existing.role, username: existing.username };
      return { user: { ...existing, ...fields }, change: { changed: { before: was, after: { tenantId: fields.tenantId, role: fields.role, username: fields.username } } } };
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(`A user named "${identity.username}" already exists in ${access.tenantId ? `tenant "${access.tenantId}"` : 'the operators'} without single sign-on: rename or delete it first`);
      throw error;
    }
  }

  private async disable(em: EntityManager, user: UserEntity): Promise<void> {
    await updateUser(em, user.id, { disabled: true });
    await endUserSessions(em, user.id);
    await revokeOwnerKeys(em, { ownerUserId: user.id, roles: keyRolesBeyond(null), now: this.clock.now() });
  }
}
