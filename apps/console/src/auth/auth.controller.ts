import { Body, HttpCode, Post, Get, Ip, Res } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import { ConsoleController, Public, RouteAccess } from '../common/access';
import { CurrentPrincipal, Principal } from '../common/principal';
import { AuthService } from './auth.service';
import { ChangePasswordDto } from './dto/change-password.dto';
import { LoginDto, LoginResponse, PrincipalView } from './dto/login.dto';
import { setRetryAfter } from './login-throttled.exception';

type ResponseHeaders = { setHeader(name: string, value: string): unknown };

@ConsoleController('auth', { tag: 'auth', access: 'authenticated' })
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post('login')
  @Public()
  @HttpCode(200)
  @ApiOperation({ summary: 'Log in (a tenant user names its tenant, an operator none); returns a session token for "Authorization: Bearer <token>". Every failure is the same 401' })
  @ApiOkResponse({ type: LoginResponse })
  @ApiTooManyRequestsResponse({ description: 'Too many wrong passwords for this account from this client address, or from this address; `Retry-After` gives the seconds to wait' })
  async login(@Body() body: LoginDto, @Ip() address: string, @Res({ passthrough: true }) response: ResponseHeaders): Promise<LoginResponse> {
    try {
      return await this.auth.login(body, address);
    } catch (error) {
      setRetryAfter(error, response);
      throw error;
    }
  }

  @Post('logout')
  @RouteAccess('authenticated')
  @HttpCode(204)
  @ApiOperation({ summary: 'End the current session (no-op for an API key)' })
  @ApiNoContentResponse()
  async logout(@CurrentPrincipal() principal: Principal): Promise<void> {
    await this.auth.logout(principal);
  }

  @Post('password')
  @RouteAccess('authenticated')
  @HttpCode(204)
  @ApiOperation({ summary: 'Change your own password (send the current one); your other sessions end, this one stays' })
  @ApiNoContentResponse()
  @ApiTooManyRequestsResponse({ description: 'Too many wrong passwords for this account from this client address, or from this address (logins count too); `Retry-After` gives the seconds to wait' })
  async changePassword(
    @CurrentPrincipal() principal: Principal,
    @Body() body: ChangePasswordDto,
    @Ip() address: string,
    @Res({ passthrough: true }) response: ResponseHeaders,
  ): Promise<void> {
    try {
      await this.auth.changePassword(principal, body.currentPassword, body.newPassword, address);
    } catch (error) {
      setRetryAfter(error, response);
      throw error;
    }
  }

  @Get('me')
  @RouteAccess('authenticated')
  @ApiOperation({ summary: 'Who am I' })
  @ApiOkResponse({ type: PrincipalView })
  me(@CurrentPrincipal() principal: Principal): PrincipalView {
    return { username: principal.username, role: principal.role, tenantId: principal.tenantId, kind: principal.kind };
  }
}
