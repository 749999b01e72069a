import { Inject, Injectable, Logger } from '@nestjs/common';
import * as bcrypt from 'bcryptjs';
import { DataSource, IsNull, LessThan, Not } from 'typeorm';
import { ApiKeyEntity, inTransaction, SessionEntity, TenantEntity, UserEntity } from '@baton/persistence';
import { badRequest, forbidden, unauthorized } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { CONSOLE_OPTIONS, ResolvedConsoleOptions } from '../common/options';
import type { Principal } from '../common/principal';
import { randomToken, sha256Hex } from '../common/secrets';
import type { LoginResponse } from './dto/login.dto';
import { LoginThrottle } from './login-throttle';
import { LoginThrottledException } from './login-throttled.exception';

@Injectable()
export class AuthService {
  private readonly logger = new Logger('Auth');
  private readonly throttle = new LoginThrottle();
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
  }

  hashPassword(password: string): Promise<string> {
    return bcrypt.hash(password, this.options.passwordHashRounds);
  }

  /**
   * Checks the password of `username`, logging in from client `address`. Too many failures of
   * the name or the address (LoginThrottle) answer 429 for a while, even to the right password.
   */
  async login(username: string, password: string, address: string): Promise<LoginResponse> {
    const waitMs = this.throttle.retryAfterMs(username, address, this.clock.now());
    if (waitMs > 0) throw new LoginThrottledException(Math.ceil(waitMs / 1000));
    const users = this.dataSource.getRepository(UserEntity);
    const user = await users.findOneBy({ username });
    const ok = await bcrypt.compare(password, user?.passwordHash ?? this.dummyHash);
    if (!user || !ok) {
      for (const lockout of this.throttle.recordFailure(username, address, this.clock.now())) {
        this.logger.warn(
          `Login lockout of ${lockout.kind} ${JSON.stringify(lockout.key)} for ${lockout.lockoutMs / 1000} s after ${lockout.failures} failed logins` +
            ` (last: user ${JSON.stringify(username)} from address ${address})`,
        );
      }
      throw unauthorized('Invalid username or password');
    }
    this.throttle.recordSuccess(username);
    if (user.disabled) throw unauthorized(`User "${user.username}" is disabled; ask an administrator to enable it`);
    const now = this.clock.now();
    const token = randomToken();
    const expiresAt = now + this.options.sessionTtlMs;
    await inTransaction(this.dataSource, async (em) => {
      // Housekeeping: the user's expired sessions go when they log in again.
      await em.delete(SessionEntity, { userId: user.id, expiresAt: LessThan(now) });
      await em.insert(SessionEntity, { userId: user.id, tokenHash: sha256Hex(token), createdAt: now, expiresAt });
    });
    return { token, expiresAt, user: { username: user.username, role: user.role, tenantId: user.tenantId } };
  }

  async logout(principal: Principal): Promise<void> {
    if (principal.sessionId !== null) {
      const id = principal.sessionId;
      await inTransaction(this.dataSource, (em) => em.delete(SessionEntity, { id }));
    }
  }

  /**
   * A logged-in user changes its own password, proving the current one. The user's other
   * sessions end (whoever else held one must log in with the new password); the calling
   * session stays. An API key has no password.
   */
  async changePassword(principal: Principal, currentPassword: string, newPassword: string): Promise<void> {
    const userId = principal.userId;
    if (userId === null) throw forbidden('An API key has no password: log in as a user to change yours');
    const user = await this.dataSource.getRepository(UserEntity).findOneBy({ id: userId });
    if (!user || !(await bcrypt.compare(currentPassword, user.passwordHash))) {
      throw badRequest([{ field: 'currentPassword', reason: 'is not your current password' }]);
    }
    if (newPassword === currentPassword) throw badRequest([{ field: 'newPassword', reason: 'must differ from the current password' }]);
    const passwordHash = await this.hashPassword(newPassword);
    await inTransaction(this.dataSource, async (em) => {
      await em.update(UserEntity, { id: userId }, { passwordHash });
      const others = principal.sessionId === null ? { userId } : { userId, id: Not(principal.sessionId) };
      await em.delete(SessionEntity, others);
    });
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
    const session = await this.dataSource.getRepository(SessionEntity).findOneBy({ tokenHash: sha256Hex(token) });
    if (!session || session.expiresAt <= now) throw unauthorized('Session expired or unknown; log in again');
    const user = await this.dataSource.getRepository(UserEntity).findOneBy({ id: session.userId });
    if (!user) throw unauthorized('Session expired or unknown; log in again');
    if (user.disabled) throw unauthorized(`User "${user.username}" is disabled`);
    return {
      kind: 'session',
      username: user.username,
      role: user.role,
      tenantId: user.role === 'OPERATOR' ? null : user.tenantId,
      userId: user.id,
      sessionId: session.id,
      apiKeyId: null,
    };
  }

  private async fromApiKey(key: string): Promise<Principal> {
    const row = await this.dataSource
      .getRepository(ApiKeyEntity)
      .findOneBy({ keyHash: sha256Hex(key), revokedAt: IsNull() });
    if (!row || (row.role !== 'TENANT_ADMIN' && row.role !== 'TENANT_VIEWER')) throw unauthorized('Unknown or revoked API key');
    const tenant = await this.dataSource.getRepository(TenantEntity).existsBy({ id: row.tenantId });
    if (!tenant) throw unauthorized('Unknown or revoked API key');
    return {
      kind: 'apiKey',
      username: `api-key:${row.name}`,
      role: row.role,
      tenantId: row.tenantId,
      userId: null,
      sessionId: null,
      apiKeyId: row.id,
    };
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
