import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsOptional } from 'class-validator';
import { SEVERITIES, WEBHOOK_EVENT_TYPES, type Severity, type WebhookEventType } from '@baton/domain';
import type * as Api from '../../api-types';

const Raw = () => Transform(({ obj, key }) => (obj as Record<string, unknown>)[key]);

/** A webhook channel as sent; the service checks each field and names the one at fault. */
export class CreateWebhookDto {
  @ApiProperty({ type: String, example: 'ops-pager', description: 'Unique within the tenant; 1–100 characters' })
  @IsOptional()
  @Raw()
  name?: unknown;

  @ApiProperty({ type: String, example: 'https://hooks.example.com/baton', description: "http(s) URL the alarms are POSTed to: a public address, or one in the tenant's networks (loopback, private, link-local and metadata addresses are refused otherwise; a host name is judged on what it resolves to, when saved and at every POST)" })
  @IsOptional()
  @Raw()
  url?: unknown;

  @ApiPropertyOptional({ enum: WEBHOOK_EVENT_TYPES, isArray: true, nullable: true, description: 'Alarm types sent, and AUDIT for each change of the audit log (only when named); null or absent: every alarm type' })
  @IsOptional()
  @Raw()
  alarmTypes?: unknown;

  @ApiPropertyOptional({ enum: SEVERITIES, default: 'WARNING', description: 'The least severe alarm sent' })
  @IsOptional()
  @Raw()
  minSeverity?: unknown;
}

export class WebhookView implements Api.Webhook {
  @ApiProperty() id!: number;
  @ApiProperty() name!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true, nullable: true }) alarmTypes!: WebhookEventType[] | null;
  @ApiProperty({ enum: SEVERITIES }) minSeverity!: Severity;
  @ApiProperty() createdAt!: number;
  @ApiProperty({ description: 'Deliveries waiting (not delivered, not given up)' }) pending!: number;
  @ApiProperty({ description: 'Deliveries given up after 24 h of failures' }) failed!: number;
  @ApiProperty({ type: String, nullable: true, description: 'The last failed delivery’s error (as the test’s `error`, or `HTTP <status>`)' }) lastError!: string | null;
}

export class CreatedWebhookView extends WebhookView implements Api.CreatedWebhook {
  @ApiProperty({ description: 'The signing secret (X-Baton-Signature: v1=HMAC-SHA256(secret, "<timestamp>.<body>")); shown in this answer only' })
  secret!: string;
}

export class WebhookTestView implements Api.WebhookTest {
  @ApiProperty({ description: 'True when the endpoint answered 2xx' }) ok!: boolean;
  @ApiProperty({ type: Number, nullable: true, description: 'Its HTTP status; null when it did not answer' }) status!: number | null;
  @ApiProperty({ description: 'Round trip, ms' }) ms!: number;
  @ApiProperty({ type: String, nullable: true, description: "Why it failed: the outbound policy's rule when the URL is refused, else in neutral words (never an address, port or what a refused host sent); a redirect is not followed" }) error!: string | null;
}
