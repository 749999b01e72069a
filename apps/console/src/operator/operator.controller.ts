import { Body, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { ApiKeyView, CreatedApiKeyView, OperatorCreateApiKeyDto } from '../api-keys/dto/api-key.dto';
import { Audited } from '../audit';
import { ConsoleController } from '../common/access';
import { IdPipe } from '../common/id.pipe';
import { CurrentPrincipal, Principal } from '../common/principal';
import { TenantFilterQuery } from '../common/tenant-id';
import {
  CreateEngineGroupDto,
  CreatedTenantView,
  CreateTenantDto,
  EngineGroupView,
  EngineNodeView,
  TenantView,
  UpdateEngineGroupDto,
  UpdateTenantDto,
} from './dto/operator.dto';
import { EngineGroupsService } from './engine-groups.service';
import { TenantsService } from './tenants.service';

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
  @ApiOperation({
    summary:
      'Create a tenant, optionally with its first TENANT_ADMIN (`admin`, in the same transaction); generates its executor secret (in this answer and GET only). No delete route: tenants are retired, not erased.',
  })
  @Audited('tenant.create')
  @ApiCreatedResponse({ type: CreatedTenantView })
  create(@Body() body: CreateTenantDto): Promise<CreatedTenantView> {
    return this.tenants.create(body);
  }

  @Get(':id')
  @ApiOperation({ summary: 'A tenant, with its executor secret' })
  @ApiOkResponse({ type: TenantView })
  get(@Param('id') id: string): Promise<TenantView> {
    return this.tenants.get(id);
  }

  @Patch(':id')
  @Audited('tenant.update')
  @ApiOperation({ summary: 'Update a tenant (name, engine group, rate limits, SSO required)' })
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
  @Audited('engine-group.create')
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
  @Audited('engine-group.update')
  @ApiOkResponse({ type: EngineGroupView })
  update(@Param('name') name: string, @Body() body: UpdateEngineGroupDto): Promise<EngineGroupView> {
    return this.groups.update(name, body);
  }

  @Delete(':name')
  @HttpCode(204)
  @Audited('engine-group.delete')
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
  @Audited('api-key.create')
  @ApiOperation({ summary: 'Create an API key for a tenant, owned by the calling operator; the clear key is in this answer only' })
  @ApiCreatedResponse({ type: CreatedApiKeyView })
  create(@Body() body: OperatorCreateApiKeyDto, @CurrentPrincipal() principal: Principal): Promise<CreatedApiKeyView> {
    return this.keys.create(body.tenantId, body.name, body.role, principal);
  }

  @Delete(':id')
  @HttpCode(204)
  @Audited('api-key.revoke')
  @ApiNoContentResponse()
  revoke(@Param('id', new IdPipe()) id: number): Promise<void> {
    return this.keys.revoke(undefined, id);
  }
}
