import { Body, HttpCode, Post, Get, Inject, Ip, Req, Res } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import { Audited } from '../audit';
import { ConsoleController, Public, RouteAccess } from '../common/access';
import { CLOCK, type Clock } from '../common/clock';
import type { HttpRequest } from '../common/http';
import { CONSOLE_OPTIONS, type ResolvedConsoleOptions } from '../common/options';
import { CurrentPrincipal, Principal } from '../common/principal';
import { AuthService } from './auth.service';
import { ChangePasswordDto } from './dto/change-password.dto';
import { LoginDto } from './dto/login.dto';
import { MeView, SessionLoginResponse } from './dto/session.dto';
import { answerWithSessionCookie, type HeaderResponse } from './session-answer';
import { clearedSessionCookieLine, secureCookieFor, type CookieSessionRequest } from './session-cookie';

@ConsoleController('auth', { tag: 'auth', access: 'authenticated' })
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONSOLE_OPTIONS) private readonly options: ResolvedConsoleOptions,
  ) {}

  @Post('login')
  @Public()
  @Audited('auth.login')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Log in (a tenant user names its tenant, an operator none). Sets the web console\'s session cookie (`baton_session`: HttpOnly, SameSite=Strict; its writes need `X-CSRF-Token: <csrfToken>`) ' +
      'and returns the same session as a token for "Authorization: Bearer <token>" (API clients; no CSRF token needed). Every failure is the same 401',
  })
  @ApiOkResponse({ type: SessionLoginResponse })
  @ApiTooManyRequestsResponse({ description: 'Too many wrong passwords for this account from this client address, or from this address; `Retry-After` gives the seconds to wait' })
  async login(@Body() body: LoginDto, @Ip() address: string, @Req() request: HttpRequest, @Res({ passthrough: true }) response: HeaderResponse): Promise<SessionLoginResponse> {
    return answerWithSessionCookie(await this.auth.login(body, address), this.clock.now(), this.options.sessionCookieSecure, request, response);
  }

  @Post('logout')
  @Audited('auth.logout')
  @RouteAccess('authenticated')
  @HttpCode(204)
  @ApiOperation({ summary: 'End the current session and clear the session cookie (no-op for an API key)' })
  @ApiNoContentResponse()
  async logout(@CurrentPrincipal() principal: Principal, @Req() request: HttpRequest, @Res({ passthrough: true }) response: HeaderResponse): Promise<void> {
    await this.auth.logout(principal);
    response.setHeader('Set-Cookie', clearedSessionCookieLine(secureCookieFor(this.options.sessionCookieSecure, request)));
  }

  @Post('password')
  @Audited('user.password-change')
  @RouteAccess('authenticated')
  @HttpCode(204)
  @ApiOperation({ summary: 'Change your own password (send the current one); your other sessions end, this one stays' })
  @ApiNoContentResponse()
  @ApiTooManyRequestsResponse({ description: 'Too many wrong passwords for this account from this client address, or from this address (logins count too); `Retry-After` gives the seconds to wait' })
  async changePassword(@CurrentPrincipal() principal: Principal, @Body() body: ChangePasswordDto, @Ip() address: string): Promise<void> {
    await this.auth.changePassword(principal, body.currentPassword, body.newPassword, address);
  }

  @Get('me')
  @RouteAccess('authenticated')
  @ApiOperation({ summary: 'Who am I (and the CSRF token of the session cookie, when it authenticated the request)' })
  @ApiOkResponse({ type: MeView })
  me(@CurrentPrincipal() principal: Principal, @Req() request: CookieSessionRequest): MeView {
    return { username: principal.username, role: principal.role, tenantId: principal.tenantId, kind: principal.kind, sso: principal.ssoProvider, csrfToken: request.csrfToken ?? null };
  }
}
