import { Inject, Injectable } from '@nestjs/common';
import * as bcrypt from 'bcryptjs';
import { DataSource, IsNull, LessThan } from 'typeorm';
import { ApiKeyEntity, inTransaction, SessionEntity, TenantEntity, UserEntity } from '@baton/persistence';
import { unauthorized } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { CONSOLE_OPTIONS, ResolvedConsoleOptions } from '../common/options';
import type { Principal } from '../common/principal';
import { randomToken, sha256Hex } from '../common/secrets';
import type { LoginResponse } from './dto/login.dto';

/** Compared against when the username is unknown, so both failures take the same time. */
const DUMMY_HASH = bcrypt.hashSync('baton-dummy-password', 4);

@Injectable()
export class AuthService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONSOLE_OPTIONS) private readonly options: ResolvedConsoleOptions,
  ) {}

  hashPassword(password: string): Promise<string> {
    return bcrypt.hash(password, this.options.passwordHashRounds);
  }

  async login(username: string, password: string): Promise<LoginResponse> {
    const users = this.dataSource.getRepository(UserEntity);
    const user = await users.findOneBy({ username });
    const ok = await bcrypt.compare(password, user?.passwordHash ?? DUMMY_HASH);
    if (!user || !ok) throw unauthorized('Invalid username or password');
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
