import { HttpStatus, Inject, Injectable, Logger } from '@nestjs/common';
import { API_KEY_PRINCIPAL_PREFIX, mayHoldKey } from '@baton/domain';
import * as bcrypt from 'bcryptjs';
import { DataSource } from 'typeorm';
import { credentialChanges, dialectOf, endSession, endUserSessions, findLoginUser, findPresentedApiKey, findSessionUser, findUserById, inTransaction, startSession, tenantRequiresSso, updateUser, type PresentedApiKey, type UserEntity } from '@baton/persistence';
import { ApiError, badRequest, forbidden, unauthorized } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { CONSOLE_OPTIONS, ResolvedConsoleOptions } from '../common/options';
import type { Principal } from '../common/principal';
import { API_KEY_MARK, randomToken, sha256Hex } from '../common/secrets';
import type { LoginResponse } from './dto/login.dto';
import { anonymousActor, auditChange, recordAudit } from '../audit';
import { LoginThrottle, throttleAccount } from './login-throttle';
import { LoginThrottledError } from './login-throttled-error';
import { refuseApiKeyPasswordChange } from './password-change-by-person';

/** What a user logs in with: its tenant (none for an operator), its name and password. */
export interface LoginCredentials {
  tenant?: string;
  username: string;
  password: string;
}

/** The one answer to every failed login, whatever failed. */
const LOGIN_FAILED = 'Invalid tenant, username or password';
/**
 * How long a working API key's row is kept after it was read (presentedKey): the longest a key
 * revoked through another console process keeps working on this one. 1 000 ms.
 */
export const API_KEY_CHECK_KEEP_MS = 1_000;
/** Working keys kept at most (each a few hundred bytes). */
const MAX_KEPT_KEYS = 10_000;

@Injectable()
export class AuthService {
  private readonly logger = new Logger('Auth');
  private readonly throttle: LoginThrottle;
  /**
   * Compared against when the username is unknown, so both failures take the same time: made
   * with the cost of real hashes (a cheaper one would tell unknown names apart by timing).
   */
  readonly dummyHash: string;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONSOLE_OPTIONS) private readonly options: ResolvedConsoleOptions,
  ) {
    this.dummyHash = bcrypt.hashSync('baton-dummy-password', options.passwordHashRounds);
    this.throttle = new LoginThrottle(dataSource);
  }

  /** Whether the database matches user names loosely (MySQL's collation: case, accents, trailing spaces…; SQLite's is exact): the throttle counts by the name as it matches. */
  private get namesFold(): boolean {
    return dialectOf(this.dataSource.manager) === 'mysql';
  }

  hashPassword(password: string): Promise<string> {
    return bcrypt.hash(password, this.options.passwordHashRounds);
  }

  /**
   * Checks the password of `username` in `tenant` (none: an operator), logging in from client
   * `address`. Every failure — unknown tenant or name, wrong password, disabled account, right
   * password or not — answers the same 401 after the same bcrypt comparison, so the answer tells
   * nothing about which accounts exist. Too many failures of this account from this address, or
   * from this address at all (LoginThrottle), answer 429 for a while, even to the right password.
   */
  async login(credentials: LoginCredentials, address: string): Promise<LoginResponse> {
    const { tenant, username, password } = credentials;
    const account = throttleAccount(tenant, username, this.namesFold);
    await this.refuseWhileThrottled(account, address);
    const user = await findLoginUser(this.dataSource.manager, tenant ?? '', username);
    // A single sign-on user has no password: compared against the dummy so it fails the same way.
    const usable = user !== null && user.ssoProvider === null;
    const ok = await bcrypt.compare(password, usable ? user.passwordHash : this.dummyHash);
    if (!user || !usable || !ok || user.disabled) {
      await this.recordFailure(account, address);
      await this.auditFailedLogin(username, address, { tenantId: user?.tenantId ?? null, userId: user?.id ?? null, after: { tenant: tenant ?? null, username } });
      throw unauthorized(LOGIN_FAILED);
    }
    await this.recordSuccess(account, address);
    // Told only to whoever knows the password: the tenant turned password logins off.
    if (user.tenantId !== null && (await tenantRequiresSso(this.dataSource.manager, user.tenantId))) {
      await this.auditFailedLogin(username, address, { tenantId: user.tenantId, userId: user.id, after: { tenant: tenant ?? null, username, reason: 'the tenant requires single sign-on' } });
      throw forbidden(`Tenant "${user.tenantId}" requires single sign-on: sign in with its identity provider`);
    }
    return this.openSession(user, address);
  }

  /** Records a failed login (an anonymous actor named by what it claimed to be) in a transaction of its own. */
  async auditFailedLogin(claimedName: string, address: string, what: { tenantId: string | null; userId: number | null; after: Record<string, unknown> }): Promise<void> {
    await inTransaction(this.dataSource, (em) =>
      recordAudit(em, {
        actor: anonymousActor(claimedName, address),
        at: this.clock.now(),
        action: 'auth.login-failed',
        tenantId: what.tenantId,
        objectType: 'user',
        objectId: what.userId,
        after: what.after,
      }),
    );
  }

  /**
   * A new session of `user`, who proved who it is from `address`, audited as `auth.login`; a
   * single sign-on gives `signOn` (its method, and what the sign-in changed of the user).
   */
  async openSession(user: UserEntity, address: string, signOn?: Record<string, unknown>): Promise<LoginResponse> {
    const now = this.clock.now();
    const token = randomToken();
    const expiresAt = now + this.options.sessionTtlMs;
    await inTransaction(this.dataSource, async (em) => {
      // Housekeeping: the user's expired sessions go when they log in again.
      await startSession(em, { userId: user.id, tokenHash: sha256Hex(token), now, expiresAt });
      await recordAudit(em, {
        actor: { kind: 'user', name: user.username, userId: user.id, apiKeyId: null, address },
        at: now,
        action: 'auth.login',
        tenantId: user.tenantId,
        objectType: 'user',
        objectId: user.id,
        ...(signOn ? { after: signOn } : {}),
      });
    });
    return { token, expiresAt, user: { username: user.username, role: user.role, tenantId: user.tenantId } };
  }

  async logout(principal: Principal): Promise<void> {
    const id = principal.sessionId;
    await inTransaction(this.dataSource, async (em) => {
      if (id !== null) await endSession(em, id);
      await auditChange(em, { tenantId: principal.tenantId, objectType: 'session', objectId: id });
    });
  }

  /**
   * A logged-in user changes its own password, proving the current one from client `address`
   * (proveOwnPassword). The user's other sessions end (whoever else held one must log in with the
   * new password); the calling session stays. An API key is refused (refuseApiKeyPasswordChange).
   */
  async changePassword(principal: Principal, currentPassword: string, newPassword: string, address: string): Promise<void> {
    refuseApiKeyPasswordChange(principal);
    const userId = principal.userId;
    const user = userId === null ? null : await findUserById(this.dataSource.manager, userId);
    if (userId === null || !user) throw unauthorized('Session expired or unknown; log in again');
    await this.proveOwnPassword(user, currentPassword, address);
    if (newPassword === currentPassword) throw badRequest([{ field: 'newPassword', reason: 'must differ from the current password' }]);
    const passwordHash = await this.hashPassword(newPassword);
    await inTransaction(this.dataSource, async (em) => {
      await updateUser(em, userId, { passwordHash });
      await endUserSessions(em, userId, principal.sessionId);
      await auditChange(em, { tenantId: user.tenantId, objectType: 'user', objectId: userId, after: { passwordChanged: true } });
    });
  }

  /**
   * Whoever changes `user`'s password as `user` itself — on POST /api/auth/password, or on a user
   * management route applied to oneself (a session of the user; never an API key:
   * refuseApiKeyPasswordChange) — proves it knows the current one, from client `address`: a stolen session or key must not
   * take the account over by setting a password. Wrong current passwords count against the
   * account and address as failed logins do (not a password oracle either). A single sign-on
   * user has no Baton password to prove: 403.
   */
  async proveOwnPassword(user: UserEntity, currentPassword: string | undefined, address: string): Promise<void> {
    if (user.ssoProvider !== null) {
      throw new ApiError(HttpStatus.FORBIDDEN, 'A single sign-on user has no Baton password: change it at your identity provider', {
        errors: [{ field: 'currentPassword', reason: 'a single sign-on user has none' }],
      });
    }
    if (currentPassword === undefined) throw badRequest([{ field: 'currentPassword', reason: 'is required to change your own password' }]);
    const account = throttleAccount(user.tenantId, user.username, this.namesFold);
    await this.refuseWhileThrottled(account, address);
    if (!(await bcrypt.compare(currentPassword, user.passwordHash))) {
      await this.recordFailure(account, address);
      throw badRequest([{ field: 'currentPassword', reason: 'is not your current password' }]);
    }
    await this.recordSuccess(account, address);
  }

  async recordSuccess(account: string, address: string): Promise<void> {
    await this.throttle.recordSuccess(account, address);
  }

  /** 429 while `account` or `address` is throttled (password and LDAP logins alike). */
  async refuseWhileThrottled(account: string, address: string): Promise<void> {
    const waitMs = await this.throttle.retryAfterMs(account, address, this.clock.now());
    if (waitMs > 0) throw new LoginThrottledError(Math.ceil(waitMs / 1000));
  }

  /** A wrong password of `account` from `address`: counts towards its throttle. */
  async recordFailure(account: string, address: string): Promise<void> {
    for (const delay of await this.throttle.recordFailure(account, address, this.clock.now())) {
      const who = delay.kind === 'address' ? `address ${delay.address}` : `account ${JSON.stringify(delay.account)} from address ${delay.address}`;
      this.logger.warn(`Login delay of ${delay.delayMs / 1000} s for ${who} after ${delay.failures} failed password checks`);
    }
  }

  /**
   * The principal named by a request's headers, or null when there are no credentials.
   * Credentials that are present but wrong (unknown, expired, revoked) are a 401.
   */
  async authenticate(headers: Record<string, string | string[] | undefined>): Promise<Principal | null> {
    const authorization = single(headers['authorization']);
    const apiKey = single(headers['x-api-key']);
    if (authorization !== undefined) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (!match) throw unauthorized('Authorization header must be "Bearer <session token>"');
      return this.fromSession(match[1]);
    }
    if (apiKey !== undefined) return this.fromApiKey(apiKey.trim());
    return null;
  }

  private async fromSession(token: string): Promise<Principal> {
    const now = this.clock.now();
    const session = await findSessionUser(this.dataSource.manager, sha256Hex(token));
    if (!session || session.expiresAt <= now) {
      // An API key sent as a session token (a session token may start with bk_ too: only one that is no session is told so).
      if (token.startsWith(API_KEY_MARK)) throw unauthorized(`This is an API key: send it in the X-API-Key header ("X-API-Key: ${API_KEY_MARK}…"); Authorization: Bearer takes a session token`);
      throw unauthorized('Session expired or unknown; log in again');
    }
    const { user } = session;
    if (user.disabled) throw unauthorized(`User "${user.username}" is disabled`);
    return {
      kind: 'session',
      username: user.username,
      role: user.role,
      tenantId: user.role === 'OPERATOR' ? null : user.tenantId,
      userId: user.id,
      actsForUserId: user.id,
      sessionId: session.id,
      apiKeyId: null,
      ssoProvider: user.ssoProvider,
    };
  }

  /** Key lookups in flight, by the key's hash (presentedKey). */
  private readonly keyLookups = new Map<string, Promise<PresentedApiKey | null>>();
  /** Working keys' rows kept after their read (presentedKey), by the key's hash. */
  private readonly keptKeys = new Map<string, { row: PresentedApiKey; until: number; changes: number }>();

  /**
   * The key's row: kept for API_KEY_CHECK_KEEP_MS after a read that found the key working, and
   * read once for all the requests that present it while a read is in flight. A client sending
   * hundreds of requests a second on one key then costs a read a second, not one per request (a
   * round trip before each request's own work, and a statement for the database).
   * A revocation (or an owner's change) written through this process drops every kept row at
   * once (credentialChanges); one written through another console process is seen within
   * API_KEY_CHECK_KEEP_MS. A key that was not found is never kept: a new key works at once.
   */
  private async presentedKey(keyHash: string): Promise<PresentedApiKey | null> {
    const now = this.clock.now();
    const kept = this.keptKeys.get(keyHash);
    if (kept && kept.until > now && kept.changes === credentialChanges()) return kept.row;
    let lookup = this.keyLookups.get(keyHash);
    if (!lookup) {
      const changes = credentialChanges();
      lookup = findPresentedApiKey(this.dataSource.manager, keyHash)
        .then((row) => {
          if (row && changes === credentialChanges()) this.keep(keyHash, { row, until: this.clock.now() + API_KEY_CHECK_KEEP_MS, changes });
          return row;
        })
        .finally(() => this.keyLookups.delete(keyHash));
      this.keyLookups.set(keyHash, lookup);
    }
    return lookup;
  }

  private keep(keyHash: string, entry: { row: PresentedApiKey; until: number; changes: number }): void {
    // Bounded: past MAX_KEPT_KEYS (a client cycling through keys) start again from none.
    if (this.keptKeys.size >= MAX_KEPT_KEYS) this.keptKeys.clear();
    this.keptKeys.set(keyHash, entry);
  }

  /**
   * An API key works while it is not revoked and its owner may still hold its role: a key whose
   * owner is gone, disabled or below the key's role is refused even if its revocation (which
   * UsersService writes with the change) was missed by a key made at that very moment. A key
   * with no owner was made before owners were recorded and works until revoked.
   */
  private async fromApiKey(key: string): Promise<Principal> {
    const row = await this.presentedKey(sha256Hex(key));
    if (!row || (row.role !== 'TENANT_ADMIN' && row.role !== 'TENANT_VIEWER')) throw unauthorized('Unknown or revoked API key');
    if (row.ownerUserId !== null && (!row.owner || !mayHoldKey(row.owner, row.role))) throw unauthorized('Unknown or revoked API key');
    return {
      kind: 'apiKey',
      username: `${API_KEY_PRINCIPAL_PREFIX}${row.name}`,
      role: row.role,
      tenantId: row.tenantId,
      userId: null,
      actsForUserId: row.ownerUserId,
      sessionId: null,
      apiKeyId: row.id,
      ssoProvider: null,
    };
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
