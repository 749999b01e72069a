import { Body, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { Audited } from '../audit';
import { ConsoleController } from '../common/access';
import { IdPipe } from '../common/id.pipe';
import { CurrentPrincipal, Principal, TenantId } from '../common/principal';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyView, CreateApiKeyDto, CreatedApiKeyView } from './dto/api-key.dto';

@ConsoleController('api-keys', { tag: 'api-keys', access: 'tenant-admin' })
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Get()
  @ApiOperation({ summary: "The tenant's API keys (TENANT_ADMIN)" })
  @ApiOkResponse({ type: [ApiKeyView] })
  list(@TenantId() tenantId: string): Promise<ApiKeyView[]> {
    return this.keys.list(tenantId);
  }

  @Post()
  @Audited('api-key.create')
  @ApiOperation({ summary: 'Create an API key owned by the caller (a key: by its owner); the clear key is in this answer only. The key dies when its owner is disabled, deleted or demoted below its role' })
  @ApiCreatedResponse({ type: CreatedApiKeyView })
  @ApiConflictResponse({ description: 'A live key of the tenant has this name (`errors[0].field` `name`): a name is one live key, as `api-key:<name>` in approval steps and the audit log' })
  create(@TenantId() tenantId: string, @Body() body: CreateApiKeyDto, @CurrentPrincipal() principal: Principal): Promise<CreatedApiKeyView> {
    return this.keys.create(tenantId, body.name, body.role, principal);
  }

  @Delete(':id')
  @HttpCode(204)
  @Audited('api-key.revoke')
  @ApiOperation({ summary: 'Revoke an API key' })
  @ApiNoContentResponse()
  revoke(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number): Promise<void> {
    return this.keys.revoke(tenantId, id);
  }
}
