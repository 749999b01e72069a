import { Body, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { Audited } from '../audit';
import { ConsoleController } from '../common/access';
import { IdPipe } from '../common/id.pipe';
import { TenantId } from '../common/principal';
import { CreatedInboundWebhookView, CreateInboundWebhookDto, InboundWebhookView, RotateInboundWebhookSecretDto } from './dto/inbound-webhook.dto';
import { InboundWebhooksService } from './inbound-webhooks.service';

@ConsoleController('inbound-webhooks', { tag: 'inbound-webhooks', access: 'tenant-admin' })
export class InboundWebhooksController {
  constructor(private readonly hooks: InboundWebhooksService) {}

  @Get()
  @ApiOperation({ summary: "The tenant's inbound webhooks (TENANT_ADMIN), by name; secrets are never listed" })
  @ApiOkResponse({ type: [InboundWebhookView] })
  list(@TenantId() tenantId: string): Promise<InboundWebhookView[]> {
    return this.hooks.list(tenantId);
  }

  @Post()
  @Audited('inbound-webhook.create')
  @ApiOperation({ summary: 'Create an inbound webhook: a URL whose signed deliveries become events; its secret is in this answer only' })
  @ApiCreatedResponse({ type: CreatedInboundWebhookView })
  create(@TenantId() tenantId: string, @Body() body: CreateInboundWebhookDto): Promise<CreatedInboundWebhookView> {
    return this.hooks.create(tenantId, body);
  }

  @Post(':id/secret')
  @HttpCode(200)
  @Audited('inbound-webhook.rotate-secret')
  @ApiOperation({ summary: "Replace an inbound webhook's secret (given, or made by Baton); the new one is in this answer only" })
  @ApiOkResponse({ type: CreatedInboundWebhookView })
  rotate(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number, @Body() body: RotateInboundWebhookSecretDto): Promise<CreatedInboundWebhookView> {
    return this.hooks.rotateSecret(tenantId, id, body.secret);
  }

  @Delete(':id')
  @HttpCode(204)
  @Audited('inbound-webhook.delete')
  @ApiOperation({ summary: 'Delete an inbound webhook: its URL refuses every delivery from then on' })
  @ApiNoContentResponse()
  delete(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number): Promise<void> {
    return this.hooks.delete(tenantId, id);
  }
}
