import { Get, HttpCode, Inject, Ip, Logger, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { Audited, auditNoChange } from '../../audit';
import { ConsoleController, Public, RouteAccess } from '../../common/access';
import { CLOCK, type Clock } from '../../common/clock';
import type { HttpRequest } from '../../common/http';
import { CONSOLE_OPTIONS, type ResolvedConsoleOptions } from '../../common/options';
import { CurrentPrincipal, type Principal } from '../../common/principal';
import { AuthService } from '../auth.service';
import { throttleAccount } from '../login-throttle';
import { LoginThrottledError } from '../login-throttled-error';
import { clearedSessionCookieLine, secureCookieFor, sessionCookieLine } from '../session-cookie';
import { OidcService, type OidcUser } from './oidc.service';
import { clearedPendingCookieLine, pendingCookieLine, pendingSignInOf } from './pending-sign-in-cookie';
import { SsoAccountsService } from './sso-accounts.service';
import { SsoRefusedError } from './sso-refused-error';

interface RedirectResponse {
  setHeader(name: string, value: string | string[]): unknown;
  redirect(status: number, url: string): void;
}

type BrowserRequest = HttpRequest & { socket?: { encrypted?: boolean } };

/** Where a refused sign-in lands: the login page, which shows the reason. */
export function loginPageWithError(reason: string): string {
  return `/login?sso_error=${encodeURIComponent(reason)}`;
}

/**
 * The browser's side of OpenID Connect sign-in: start (to the provider), callback (back from it,
 * with a Baton session), logout (ends the Baton session, then the provider's). Each answers a
 * redirect, never an error page: a failure lands on the login page with its reason.
 */
@ConsoleController('auth/oidc', { tag: 'auth', access: 'public' })
export class OidcController {
  private readonly logger = new Logger('OIDC');

  constructor(
    private readonly oidc: OidcService,
    private readonly accounts: SsoAccountsService,
    private readonly auth: AuthService,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONSOLE_OPTIONS) private readonly options: ResolvedConsoleOptions,
  ) {}

  @Get('start')
  @Public()
  @ApiOperation({ summary: 'Browser: start an OpenID Connect sign-in (redirect to the identity provider, authorization code with PKCE)' })
  @ApiFoundResponse({ description: "To the provider's authorization endpoint; to `/login?sso_error=…` when the provider cannot be reached" })
  async start(@Req() request: BrowserRequest, @Res() response: RedirectResponse): Promise<void> {
    try {
      const { url, pending } = await this.oidc.start();
      response.setHeader('Set-Cookie', pendingCookieLine(pending, this.secure(request)));
      response.redirect(302, url);
    } catch (error) {
      this.refused(error, response);
    }
  }

  @Get('callback')
  @Public()
  @Audited('auth.login')
  @ApiExcludeEndpoint()
  async callback(@Req() request: BrowserRequest, @Ip() address: string, @Res() response: RedirectResponse): Promise<void> {
    const secure = this.secure(request);
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
    // The pending sign-in is used once, whatever happens.
    response.setHeader('Set-Cookie', clearedPendingCookieLine(secure));
    // OpenID Connect off: nothing to sign in with, nothing to record (anyone can call this URL).
    if (!this.options.sso.oidc) {
      auditNoChange();
      return response.redirect(302, loginPageWithError('Single sign-on with OpenID Connect is not configured'));
    }
    // Failed callbacks count as failed password logins do, per address and per sign-in (its state:
    // the provider names no account until it succeeds); past the limit, refused unchecked and unrecorded.
    const account = throttleAccount('(oidc)', new URLSearchParams(query).get('state') ?? '');
    try {
      await this.auth.refuseWhileThrottled(account, address);
    } catch (error) {
      if (!(error instanceof LoginThrottledError)) throw error;
      auditNoChange();
      return response.redirect(302, loginPageWithError(error.message));
    }
    let user: OidcUser;
    try {
      user = await this.oidc.finish(query, pendingSignInOf(single(request.headers['cookie'])));
    } catch (error) {
      await this.auth.recordFailure(account, address);
      await this.auth.auditFailedLogin('(oidc)', address, { tenantId: null, userId: null, after: { method: 'oidc', reason: error instanceof Error ? error.message : String(error) } });
      return this.refused(error, response);
    }
    try {
      const session = await this.accounts.signIn({ provider: 'oidc', ...user }, address);
      response.setHeader('Set-Cookie', [clearedPendingCookieLine(secure), sessionCookieLine(session.token, (session.expiresAt - this.clock.now()) / 1000, secure)]);
      response.redirect(302, '/');
    } catch (error) {
      this.refused(error, response);
    }
  }

  // A POST, so a cookie session's logout carries its CSRF token as every write does (a link or an image on another site cannot end it).
  @Post('logout')
  @HttpCode(200)
  @RouteAccess('authenticated')
  @Audited('auth.logout')
  @ApiOperation({ summary: "Browser: end the Baton session; answers where to send the browser to end the provider's (RP-initiated logout, when it has an end_session_endpoint)" })
  @ApiOkResponse({ description: "`{ redirectTo }`: the provider's end_session_endpoint, or `/login`", schema: { type: 'object', properties: { redirectTo: { type: 'string' } } } })
  async logout(@CurrentPrincipal() principal: Principal, @Req() request: BrowserRequest, @Res({ passthrough: true }) response: RedirectResponse): Promise<{ redirectTo: string }> {
    await this.auth.logout(principal);
    response.setHeader('Set-Cookie', clearedSessionCookieLine(this.secure(request)));
    const loginPage = new URL('/login', this.options.sso.oidc?.redirectUrl ?? 'http://localhost/').href;
    const endSession = this.options.sso.oidc ? await this.oidc.endSessionUrl(loginPage) : null;
    return { redirectTo: endSession ?? '/login' };
  }

  private secure(request: BrowserRequest): boolean {
    return secureCookieFor(this.options.sessionCookieSecure, request);
  }

  private refused(error: unknown, response: RedirectResponse): void {
    if (error instanceof SsoRefusedError) {
      this.logger.warn(`Sign-in refused: ${error.message}`);
      return response.redirect(302, loginPageWithError(`Sign-in with ${this.options.sso.oidc?.name ?? 'single sign-on'} refused: ${error.message}`));
    }
    // SsoAccountsService's refusals (no mapped group, disabled account, unknown tenant) carry their reason as an ApiError.
    const message = error instanceof Error ? error.message : String(error);
    if (!(error instanceof Error) || !('getStatus' in error)) this.logger.error(`Sign-in failed: ${message}`);
    response.redirect(302, loginPageWithError(message));
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
