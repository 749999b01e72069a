import { Body, HttpCode, Post, Get, Ip, Res } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import { ConsoleController, Public, RouteAccess } from '../common/access';
import { CurrentPrincipal, Principal } from '../common/principal';
import { AuthService } from './auth.service';
import { ChangePasswordDto } from './dto/change-password.dto';
import { LoginDto, LoginResponse, PrincipalView } from './dto/login.dto';
import { LoginThrottledException } from './login-throttled.exception';

@ConsoleController('auth', { tag: 'auth', access: 'authenticated' })
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post('login')
  @Public()
  @HttpCode(200)
  @ApiOperation({ summary: 'Log in; returns a session token for "Authorization: Bearer <token>"' })
  @ApiOkResponse({ type: LoginResponse })
  @ApiTooManyRequestsResponse({ description: 'Too many failed logins of this user name or client address; `Retry-After` gives the seconds to wait' })
  async login(@Body() body: LoginDto, @Ip() address: string, @Res({ passthrough: true }) response: { setHeader(name: string, value: string): unknown }): Promise<LoginResponse> {
    try {
      return await this.auth.login(body.username, body.password, address);
    } catch (error) {
      if (error instanceof LoginThrottledException) response.setHeader('Retry-After', String(error.retryAfterSeconds));
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
  async changePassword(@CurrentPrincipal() principal: Principal, @Body() body: ChangePasswordDto): Promise<void> {
    await this.auth.changePassword(principal, body.currentPassword, body.newPassword);
  }

  @Get('me')
  @RouteAccess('authenticated')
  @ApiOperation({ summary: 'Who am I' })
  @ApiOkResponse({ type: PrincipalView })
  me(@CurrentPrincipal() principal: Principal): PrincipalView {
    return { username: principal.username, role: principal.role, tenantId: principal.tenantId, kind: principal.kind };
  }
}
