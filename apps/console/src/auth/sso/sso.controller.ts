import { Body, Get, HttpCode, Inject, Ip, Post, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import { Audited } from '../../audit';
import { ConsoleController, Public } from '../../common/access';
import { CLOCK, type Clock } from '../../common/clock';
import type { HttpRequest } from '../../common/http';
import { CONSOLE_OPTIONS, type ResolvedConsoleOptions } from '../../common/options';
import { SessionLoginResponse } from '../dto/session.dto';
import { answerWithSessionCookie, type HeaderResponse } from '../session-answer';
import { LdapLoginDto, SsoMethodsView } from './dto/sso.dto';
import { LdapService } from './ldap.service';

@ConsoleController('auth', { tag: 'auth', access: 'public' })
export class SsoController {
  constructor(
    private readonly ldap: LdapService,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONSOLE_OPTIONS) private readonly options: ResolvedConsoleOptions,
  ) {}

  @Get('sso')
  @Public()
  @ApiOperation({ summary: 'The single sign-on methods of this console (the login page shows a button for each)' })
  @ApiOkResponse({ type: SsoMethodsView })
  methods(): SsoMethodsView {
    const oidc = this.options.sso.oidc;
    return { oidc: oidc ? { name: oidc.name, startUrl: '/api/auth/oidc/start' } : null, ldap: this.options.sso.ldap !== null };
  }

  @Post('ldap/login')
  @Public()
  @Audited('auth.login')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Sign in with an LDAP directory account: bind as the user, map its groups (`BATON_SSO_GROUP_MAP`) to a tenant and role; the user is provisioned or kept in step. ' +
      'Answers as `POST /api/auth/login` (session cookie and token). 401 wrong name or password, 403 no mapped group, 503 directory unreachable',
  })
  @ApiOkResponse({ type: SessionLoginResponse })
  @ApiTooManyRequestsResponse({ description: 'Too many wrong passwords for this account from this client address, or from this address' })
  async ldapLogin(@Body() body: LdapLoginDto, @Ip() address: string, @Req() request: HttpRequest, @Res({ passthrough: true }) response: HeaderResponse): Promise<SessionLoginResponse> {
    return answerWithSessionCookie(await this.ldap.login(body.username, body.password, address), this.clock.now(), this.options.sessionCookieSecure, request, response);
  }
}
