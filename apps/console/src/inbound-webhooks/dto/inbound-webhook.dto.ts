import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString } from 'class-validator';
import { NAME_MAX_LENGTH, NAME_PATTERN } from '@baton/domain';
import type { InboundWebhookScheme } from '@baton/persistence';
import type * as Api from '../../api-types';
import { IsName, OptionalNotNull } from '../../common/validation';
import { INBOUND_WEBHOOK_SCHEMES, SECRET_PATTERN } from '../inbound-webhook';

export class CreateInboundWebhookDto {
  @ApiProperty({ example: 'github-pushes', pattern: NAME_PATTERN.source, maxLength: NAME_MAX_LENGTH, description: 'A-Z a-z 0-9 . _ -, unique within the tenant' })
  @IsName()
  name!: string;

  @ApiProperty({ example: 'github.push', description: 'The name of the events its deliveries become (the rule of POST /api/events)' })
  @IsString()
  event!: string;

  @ApiProperty({ enum: INBOUND_WEBHOOK_SCHEMES, description: 'GITHUB: X-Hub-Signature-256 and X-GitHub-Delivery (required); STRIPE: Stripe-Signature with a 300 s replay window. A signature is taken once (a replay under another delivery id is refused)' })
  @IsIn(INBOUND_WEBHOOK_SCHEMES)
  scheme!: InboundWebhookScheme;

  @ApiPropertyOptional({ type: String, pattern: SECRET_PATTERN.source, description: 'The signing secret, 16 to 128 characters of printable ASCII, no spaces; default: one Baton makes (32 random bytes, base64url)' })
  @OptionalNotNull('for a secret Baton makes')
  @IsString()
  secret?: string;
}

export class RotateInboundWebhookSecretDto {
  @ApiPropertyOptional({ type: String, pattern: SECRET_PATTERN.source, description: 'The new secret (16 to 128 characters of printable ASCII, no spaces); default: one Baton makes' })
  @OptionalNotNull('for a secret Baton makes')
  @IsString()
  secret?: string;
}

export class InboundWebhookView implements Api.InboundWebhook {
  @ApiProperty() id!: number;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'The name of the events its deliveries become' }) event!: string;
  @ApiProperty({ enum: INBOUND_WEBHOOK_SCHEMES }) scheme!: InboundWebhookScheme;
  @ApiProperty({ example: '/api/hooks/ih_…', description: "The path to give the third party, after the console's address; the secret is its only credential" }) path!: string;
  @ApiProperty() createdAt!: number;
}

export class CreatedInboundWebhookView extends InboundWebhookView implements Api.CreatedInboundWebhook {
  @ApiProperty({ description: 'The signing secret, in this answer only (it is kept to verify signatures, never shown again; rotate it to get a new one)' }) secret!: string;
}

export class DeliveryAcceptedView {
  @ApiProperty({ description: 'The event the delivery became (or, for a repeat, became before)' }) eventId!: number;
  @ApiProperty({ description: 'false: a repeat of a delivery already received (same delivery or event id); it started nothing' }) created!: boolean;
  @ApiProperty({ type: [Number], description: 'The runs the event started' }) runIds!: number[];
}
