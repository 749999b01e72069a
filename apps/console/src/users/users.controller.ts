import { Body, Delete, Get, HttpCode, Ip, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import { Audited } from '../audit';
import { ConsoleController } from '../common/access';
import { IdPipe } from '../common/id.pipe';
import { CurrentPrincipal, Principal, TenantId } from '../common/principal';
import { TenantFilterQuery } from '../common/tenant-id';
import { CreateTenantUserDto, CreateUserDto, ResetPasswordDto, UpdateUserDto, UserView } from './dto/user.dto';
import { UsersService } from './users.service';

/** The operator manages the users of every tenant, and the operators. */
@ConsoleController('operator/users', { tag: 'operator', access: 'operator' })
export class OperatorUsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @ApiOperation({ summary: "Users of every tenant and the operators, or of `tenantId`'s" })
  @ApiOkResponse({ type: [UserView] })
  list(@Query() query: TenantFilterQuery): Promise<UserView[]> {
    return this.users.list(query.tenantId);
  }

  @Post()
  @Audited('user.create')
  @ApiOperation({ summary: 'Create a user: OPERATOR (no tenant) or TENANT_ADMIN / TENANT_VIEWER of a tenant' })
  @ApiCreatedResponse({ type: UserView })
  create(@Body() body: CreateUserDto): Promise<UserView> {
    return this.users.create(body);
  }

  @Patch(':id')
  @Audited('user.update')
  @ApiOperation({ summary: 'Change a tenant user\'s role, disable or enable a user (a disabled user\'s sessions end)' })
  @ApiOkResponse({ type: UserView })
  update(@Param('id', new IdPipe()) id: number, @Body() body: UpdateUserDto, @CurrentPrincipal() principal: Principal): Promise<UserView> {
    return this.users.update(id, body, { actingUserId: principal.actsForUserId });
  }

  @Post(':id/password')
  @Audited('user.password-reset')
  @HttpCode(204)
  @ApiOperation({ summary: "Set a user's password, in a session (an API key: 403); the user's sessions end. Your own only with `currentPassword` (your other sessions end, this one stays)" })
  @ApiNoContentResponse()
  @ApiTooManyRequestsResponse({ description: 'Your own: too many wrong current passwords for this account from this client address, or from this address (logins count too); `Retry-After` gives the seconds to wait' })
  resetPassword(@Param('id', new IdPipe()) id: number, @Body() body: ResetPasswordDto, @CurrentPrincipal() principal: Principal, @Ip() address: string): Promise<void> {
    return this.users.resetPassword(id, body, { actingUserId: principal.actsForUserId }, { kind: principal.kind, address, sessionId: principal.sessionId });
  }

  @Delete(':id')
  @Audited('user.delete')
  @HttpCode(204)
  @ApiNoContentResponse()
  delete(@Param('id', new IdPipe()) id: number, @CurrentPrincipal() principal: Principal): Promise<void> {
    return this.users.delete(id, principal.actsForUserId);
  }
}

/** A tenant admin manages the users of its own tenant (a viewer: 403). */
@ConsoleController('users', { tag: 'users', access: 'tenant-admin' })
export class TenantUsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @ApiOperation({ summary: "The caller's tenant's users" })
  @ApiOkResponse({ type: [UserView] })
  list(@TenantId() tenantId: string): Promise<UserView[]> {
    return this.users.list(tenantId);
  }

  @Post()
  @Audited('user.create')
  @ApiOperation({ summary: 'Create a TENANT_ADMIN or TENANT_VIEWER of the caller\'s tenant' })
  @ApiCreatedResponse({ type: UserView })
  create(@TenantId() tenantId: string, @Body() body: CreateTenantUserDto): Promise<UserView> {
    return this.users.create({ ...body, tenantId });
  }

  @Patch(':id')
  @Audited('user.update')
  @ApiOperation({ summary: 'Change a user\'s role (TENANT_ADMIN / TENANT_VIEWER), disable or enable it (a disabled user\'s sessions end)' })
  @ApiOkResponse({ type: UserView })
  update(
    @TenantId() tenantId: string,
    @Param('id', new IdPipe()) id: number,
    @Body() body: UpdateUserDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<UserView> {
    return this.users.update(id, body, { tenantId, actingUserId: principal.actsForUserId });
  }

  @Post(':id/password')
  @Audited('user.password-reset')
  @HttpCode(204)
  @ApiOperation({ summary: "Set a user's password, in a session (an API key: 403); the user's sessions end. Your own only with `currentPassword` (your other sessions end, this one stays)" })
  @ApiNoContentResponse()
  @ApiTooManyRequestsResponse({ description: 'Your own: too many wrong current passwords for this account from this client address, or from this address (logins count too); `Retry-After` gives the seconds to wait' })
  resetPassword(
    @TenantId() tenantId: string,
    @Param('id', new IdPipe()) id: number,
    @Body() body: ResetPasswordDto,
    @CurrentPrincipal() principal: Principal,
    @Ip() address: string,
  ): Promise<void> {
    return this.users.resetPassword(id, body, { tenantId, actingUserId: principal.actsForUserId }, { kind: principal.kind, address, sessionId: principal.sessionId });
  }
}
