import { Body, HttpCode, Post, Get } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ConsoleController, Public, RouteAccess } from '../common/access';
import { CurrentPrincipal, Principal } from '../common/principal';
import { AuthService } from './auth.service';
import { ChangePasswordDto } from './dto/change-password.dto';
import { LoginDto, LoginResponse, PrincipalView } from './dto/login.dto';

@ConsoleController('auth', { tag: 'auth', access: 'authenticated' })
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post('login')
  @Public()
  @HttpCode(200)
  @ApiOperation({ summary: 'Log in; returns a session token for "Authorization: Bearer <token>"' })
  @ApiOkResponse({ type: LoginResponse })
  login(@Body() body: LoginDto): Promise<LoginResponse> {
    return this.auth.login(body.username, body.password);
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
