import { Body, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { Audited, NotAudited } from '../audit';
import { ConsoleController } from '../common/access';
import { IdPipe } from '../common/id.pipe';
import { TenantId } from '../common/principal';
import { CreatedWebhookView, CreateWebhookDto, WebhookTestView, WebhookView } from './dto/webhook.dto';
import { WebhooksService } from './webhooks.service';

@ConsoleController('webhooks', { tag: 'webhooks', access: 'tenant-admin' })
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get()
  @ApiOperation({ summary: "The tenant's webhook channels, with their pending and given-up deliveries (TENANT_ADMIN)" })
  @ApiOkResponse({ type: [WebhookView] })
  list(@TenantId() tenantId: string): Promise<WebhookView[]> {
    return this.webhooks.list(tenantId);
  }

  @Post()
  @ApiOperation({
    summary: 'Add a webhook channel: alarms of the chosen types and severities are POSTed to it as the topic carries them, signed; the secret is in this answer only',
  })
  @Audited('webhook.create')
  @ApiCreatedResponse({ type: CreatedWebhookView })
  create(@TenantId() tenantId: string, @Body() body: CreateWebhookDto): Promise<CreatedWebhookView> {
    return this.webhooks.create(tenantId, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @Audited('webhook.delete')
  @ApiOperation({ summary: 'Remove a webhook channel (its undelivered alarms are dropped)' })
  @ApiNoContentResponse()
  delete(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number): Promise<void> {
    return this.webhooks.delete(tenantId, id);
  }

  @Post(':id/test')
  @HttpCode(200)
  @NotAudited('sends a test message; stores nothing')
  @ApiOperation({ summary: 'Send a test message to the channel now and say what it answered' })
  @ApiOkResponse({ type: WebhookTestView })
  test(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number): Promise<WebhookTestView> {
    return this.webhooks.test(tenantId, id);
  }
}
