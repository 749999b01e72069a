import { Body, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { ApiKeyView, CreatedApiKeyView, OperatorCreateApiKeyDto } from '../api-keys/dto/api-key.dto';
import { ConsoleController } from '../common/access';
import { IdPipe } from '../common/id.pipe';
import { CurrentPrincipal, Principal } from '../common/principal';
import {
  CreateEngineGroupDto,
  CreateTenantDto,
  CreateUserDto,
  EngineGroupView,
  EngineNodeView,
  TenantFilterQuery,
  TenantView,
  UpdateEngineGroupDto,
  UpdateTenantDto,
  UserView,
} from './dto/operator.dto';
import { EngineGroupsService } from './engine-groups.service';
import { TenantsService } from './tenants.service';
import { UsersService } from './users.service';

@ConsoleController('operator/tenants', { tag: 'operator', access: 'operator' })
export class OperatorTenantsController {
  constructor(private readonly tenants: TenantsService) {}

  @Get()
  @ApiOperation({ summary: 'List tenants (without executor secrets)' })
  @ApiOkResponse({ type: [TenantView] })
  list(): Promise<TenantView[]> {
    return this.tenants.list();
  }

  @Post()
  @ApiOperation({ summary: 'Create a tenant; generates its executor secret. No delete route: tenants are retired, not erased.' })
  @ApiCreatedResponse({ type: TenantView })
  create(@Body() body: CreateTenantDto): Promise<TenantView> {
    return this.tenants.create(body);
  }

  @Get(':id')
  @ApiOperation({ summary: 'A tenant, with its executor secret' })
  @ApiOkResponse({ type: TenantView })
  get(@Param('id') id: string): Promise<TenantView> {
    return this.tenants.get(id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Update a tenant (name, engine group, rate limits)' })
  @ApiOkResponse({ type: TenantView })
  update(@Param('id') id: string, @Body() body: UpdateTenantDto): Promise<TenantView> {
    return this.tenants.update(id, body);
  }
}

@ConsoleController('operator/engine-groups', { tag: 'operator', access: 'operator' })
export class OperatorEngineGroupsController {
  constructor(private readonly groups: EngineGroupsService) {}

  @Get()
  @ApiOkResponse({ type: [EngineGroupView] })
  list(): Promise<EngineGroupView[]> {
    return this.groups.list();
  }

  @Post()
  @ApiCreatedResponse({ type: EngineGroupView })
  create(@Body() body: CreateEngineGroupDto): Promise<EngineGroupView> {
    return this.groups.create(body);
  }

  @Get(':name')
  @ApiOkResponse({ type: EngineGroupView })
  get(@Param('name') name: string): Promise<EngineGroupView> {
    return this.groups.get(name);
  }

  @Patch(':name')
  @ApiOkResponse({ type: EngineGroupView })
  update(@Param('name') name: string, @Body() body: UpdateEngineGroupDto): Promise<EngineGroupView> {
    return this.groups.update(name, body);
  }

  @Delete(':name')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete an engine group no tenant is bound to (409 otherwise)' })
  @ApiNoContentResponse()
  delete(@Param('name') name: string): Promise<void> {
    return this.groups.delete(name);
  }
}

@ConsoleController('operator/engine-nodes', { tag: 'operator', access: 'operator' })
export class OperatorEngineNodesController {
  constructor(private readonly groups: EngineGroupsService) {}

  @Get()
  @ApiOperation({ summary: 'Engine nodes and their heartbeats' })
  @ApiOkResponse({ type: [EngineNodeView] })
  list(): Promise<EngineNodeView[]> {
    return this.groups.nodes();
  }
}

@ConsoleController('operator/users', { tag: 'operator', access: 'operator' })
export class OperatorUsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @ApiOkResponse({ type: [UserView] })
  list(@Query() query: TenantFilterQuery): Promise<UserView[]> {
    return this.users.list(query.tenantId);
  }

  @Post()
  @ApiOperation({ summary: 'Create a user: OPERATOR (no tenant) or TENANT_ADMIN / TENANT_VIEWER of a tenant' })
  @ApiCreatedResponse({ type: UserView })
  create(@Body() body: CreateUserDto): Promise<UserView> {
    return this.users.create(body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse()
  delete(@Param('id', new IdPipe()) id: number, @CurrentPrincipal() principal: Principal): Promise<void> {
    return this.users.delete(id, principal.userId);
  }
}

@ConsoleController('operator/api-keys', { tag: 'operator', access: 'operator' })
export class OperatorApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Get()
  @ApiOperation({ summary: "API keys of every tenant, or of `tenantId`'s" })
  @ApiOkResponse({ type: [ApiKeyView] })
  list(@Query() query: TenantFilterQuery): Promise<ApiKeyView[]> {
    return this.keys.list(query.tenantId);
  }

  @Post()
  @ApiOperation({ summary: 'Create an API key for a tenant; the clear key is in this answer only' })
  @ApiCreatedResponse({ type: CreatedApiKeyView })
  create(@Body() body: OperatorCreateApiKeyDto): Promise<CreatedApiKeyView> {
    return this.keys.create(body.tenantId, body.name, body.role);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse()
  revoke(@Param('id', new IdPipe()) id: number): Promise<void> {
    return this.keys.revoke(undefined, id);
  }
}
