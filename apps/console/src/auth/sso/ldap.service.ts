import { HttpStatus, Inject, Injectable, Logger } from '@nestjs/common';
import { Client, InvalidCredentialsError, NoSuchObjectError } from 'ldapts';
import { MAX_USERNAME_LENGTH } from '@baton/domain';
import { ApiError, unauthorized } from '../../common/api-error';
import { CONSOLE_OPTIONS, ResolvedConsoleOptions } from '../../common/options';
import { AuthService } from '../auth.service';
import type { LoginResponse } from '../dto/login.dto';
import { throttleAccount } from '../login-throttle';
import { escapeDnValue, escapeFilterValue, firstRdnValue } from './ldap-escape';
import type { LdapOptions } from '../../common/sso-options';
import { SsoAccountsService } from './sso-accounts.service';

/** How long the directory may take to connect and to answer one operation. */
const DIRECTORY_TIMEOUT_MS = 5000;

/** Throttle keys of LDAP logins: `ldap:` is no tenant id (tenant ids have no colon), so they never meet a password login's. */
const LDAP_ACCOUNTS = 'ldap:';

/** The directory's entry of the user who bound: its DN as the directory holds it, and its groups. */
interface DirectoryUser {
  dn: string;
  groups: string[];
}

/**
 * LDAP sign-in: the user binds as itself (`BATON_LDAP_USER_DN` with its escaped name) with the
 * password it typed, then reads its own entry and searches its groups as that user; the groups
 * map to access as OpenID Connect's do (SsoAccountsService). Baton keeps no password of an LDAP
 * user and needs no service account. Wrong passwords count against the login throttle like
 * password logins.
 *
 * Who signed in is the entry the directory bound, named by the DN the directory holds it under,
 * never by the name as typed: a directory matches names loosely (`  erin`, `ERIN` and `ｅｒｉｎ`
 * all bind as `uid=erin`), so an account keyed on the typed name would give each spelling an
 * account of its own — a disabled user back in under a new spelling. The user's name is the
 * value of that DN's first attribute (`erin`); the throttle counts every spelling as one
 * (throttleAccount folds names at least as far as directories match them).
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
    const bindDn = options.userDn.replace(/\{username\}/g, escapeDnValue(username));
    const user = await this.bindAs(options, bindDn, password).catch(async (error: unknown) => {
      if (error instanceof InvalidCredentialsError) {
        await this.auth.recordFailure(account, address);
        await this.auth.auditFailedLogin(username, address, { tenantId: null, userId: null, after: { method: 'ldap', username } });
        throw unauthorized('Invalid username or password');
      }
      if (error instanceof ApiError) throw error;
      this.logger.warn(`LDAP sign-in of "${username}" failed: ${String(error)}`);
      throw new ApiError(HttpStatus.SERVICE_UNAVAILABLE, `The LDAP directory at ${options.url} cannot be reached (${error instanceof Error ? error.message : String(error)}): try again later`);
    });
    await this.auth.recordSuccess(account, address);
    const name = firstRdnValue(user.dn).slice(0, MAX_USERNAME_LENGTH);
    return this.accounts.signIn({ provider: 'ldap', subject: user.dn.toLowerCase(), username: name, groups: user.groups }, address);
  }

  private async bindAs(options: LdapOptions, bindDn: string, password: string): Promise<DirectoryUser> {
    const client = new Client({ url: options.url, timeout: DIRECTORY_TIMEOUT_MS, connectTimeout: DIRECTORY_TIMEOUT_MS });
    try {
      await client.bind(bindDn, password);
      // '1.1': no attributes, the entry's DN alone.
      const [self] = await client.search(bindDn, { scope: 'base', attributes: ['1.1'] }).then(
        (found) => found.searchEntries,
        (error: unknown) => (error instanceof NoSuchObjectError ? [] : Promise.reject(error)),
      );
      if (!self) {
        this.logger.warn(`LDAP sign-in: "${bindDn}" bound but may not read its own entry`);
        throw new ApiError(HttpStatus.SERVICE_UNAVAILABLE, `The LDAP directory at ${options.url} does not let you read your own entry, which Baton reads to know who signed in: ask your administrator to allow it`);
      }
      const filter = options.groupFilter.replace(/\{dn\}/g, escapeFilterValue(self.dn));
      const { searchEntries } = await client.search(options.groupBase, { scope: 'sub', filter, attributes: [options.groupAttribute] });
      return { dn: self.dn, groups: searchEntries.flatMap((entry) => ([] as unknown[]).concat(entry[options.groupAttribute] ?? [])).map(String) };
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }
}
