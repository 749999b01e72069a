import { HttpStatus, Inject, Injectable, Logger } from '@nestjs/common';
import { Client, InvalidCredentialsError } from 'ldapts';
import { ApiError, unauthorized } from '../../common/api-error';
import { CONSOLE_OPTIONS, ResolvedConsoleOptions } from '../../common/options';
import { AuthService } from '../auth.service';
import type { LoginResponse } from '../dto/login.dto';
import { throttleAccount } from '../login-throttle';
import { escapeDnValue, escapeFilterValue } from './ldap-escape';
import type { LdapOptions } from '../../common/sso-options';
import { SsoAccountsService } from './sso-accounts.service';

/** How long the directory may take to connect and to answer one operation. */
const DIRECTORY_TIMEOUT_MS = 5000;

/** Throttle keys of LDAP logins: `ldap:` is no tenant id (tenant ids have no colon), so they never meet a password login's. */
const LDAP_ACCOUNTS = 'ldap:';

/**
 * LDAP sign-in: the user binds as itself (`BATON_LDAP_USER_DN` with its escaped name) with the
 * password it typed, then its groups are searched as that user; the groups map to access as
 * OpenID Connect's do (SsoAccountsService). Baton keeps no password of an LDAP user and needs no
 * service account. Wrong passwords count against the login throttle like password logins.
 */
@Injectable()
export class LdapService {
  private readonly logger = new Logger('LDAP');

  constructor(
    private readonly auth: AuthService,
    private readonly accounts: SsoAccountsService,
    @Inject(CONSOLE_OPTIONS) private readonly consoleOptions: ResolvedConsoleOptions,
  ) {}

  async login(username: string, password: string, address: string): Promise<LoginResponse> {
    const options = this.consoleOptions.sso.ldap;
    if (!options) throw new ApiError(HttpStatus.NOT_FOUND, 'LDAP sign-in is not configured on this console (BATON_LDAP_URL)');
    const account = throttleAccount(LDAP_ACCOUNTS, username);
    await this.auth.refuseWhileThrottled(account, address);
    const dn = options.userDn.replace(/\{username\}/g, escapeDnValue(username));
    const groups = await this.groupsOf(options, dn, password).catch(async (error: unknown) => {
      if (error instanceof InvalidCredentialsError) {
        await this.auth.recordFailure(account, address);
        await this.auth.auditFailedLogin(username, address, { tenantId: null, userId: null, after: { method: 'ldap', username } });
        throw unauthorized('Invalid username or password');
      }
      this.logger.warn(`LDAP sign-in of "${username}" failed: ${String(error)}`);
      throw new ApiError(HttpStatus.SERVICE_UNAVAILABLE, `The LDAP directory at ${options.url} cannot be reached (${error instanceof Error ? error.message : String(error)}): try again later`);
    });
    await this.auth.recordSuccess(account, address);
    return this.accounts.signIn({ provider: 'ldap', subject: dn.toLowerCase(), username, groups }, address);
  }

  private async groupsOf(options: LdapOptions, dn: string, password: string): Promise<string[]> {
    const client = new Client({ url: options.url, timeout: DIRECTORY_TIMEOUT_MS, connectTimeout: DIRECTORY_TIMEOUT_MS });
    try {
      await client.bind(dn, password);
      const filter = options.groupFilter.replace(/\{dn\}/g, escapeFilterValue(dn));
      const { searchEntries } = await client.search(options.groupBase, { scope: 'sub', filter, attributes: [options.groupAttribute] });
      return searchEntries.flatMap((entry) => ([] as unknown[]).concat(entry[options.groupAttribute] ?? [])).map(String);
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }
}
