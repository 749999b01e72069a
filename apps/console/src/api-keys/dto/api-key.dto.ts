import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Matches } from 'class-validator';
import { MAX_API_KEY_NAME_LENGTH, NAME_PATTERN } from '@baton/domain';
import { IsName, OptionalNotNull } from '../../common/validation';
import { API_KEY_ROLES, type ApiKeyRole } from '../../api-types';
import type * as Api from '../../api-types';

export class CreateApiKeyDto {
  @ApiProperty({ example: 'ci-pipeline', pattern: NAME_PATTERN.source, maxLength: MAX_API_KEY_NAME_LENGTH, description: 'A-Z a-z 0-9 . _ -; one live key of the tenant a name. The key acts as `api-key:<name>`' })
  @IsName()
  name!: string;

  @ApiPropertyOptional({ enum: API_KEY_ROLES, default: 'TENANT_VIEWER' })
  @OptionalNotNull('for the default, TENANT_VIEWER')
  @IsIn(API_KEY_ROLES)
  role?: ApiKeyRole;
}

export class OperatorCreateApiKeyDto extends CreateApiKeyDto {
  @ApiProperty({ example: 'acme' })
  @IsString()
  @Matches(/^[a-z0-9][a-z0-9-]{0,63}$/, { message: 'must be a tenant id (slug)' })
  tenantId!: string;
}

export class ApiKeyView implements Api.ApiKey {
  @ApiProperty() id!: number;
  @ApiProperty() tenantId!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'First characters of the key, to recognise it' }) prefix!: string;
  @ApiProperty({ enum: API_KEY_ROLES }) role!: string;
  @ApiProperty({ type: Number, nullable: true, description: 'The user who made the key; null: made before keys recorded their owner (it works until revoked)' }) ownerUserId!: number | null;
  @ApiProperty({ type: String, nullable: true, description: "That user's name; null when there is no owner or it was deleted" }) ownerUsername!: string | null;
  @ApiProperty() createdAt!: number;
  @ApiProperty({ type: Number, nullable: true }) revokedAt!: number | null;
}

export class CreatedApiKeyView extends ApiKeyView implements Api.CreatedApiKey {
  @ApiProperty({ description: 'The key in clear. Shown once: only its SHA-256 is stored. Send as `X-API-Key: <key>`.' })
  key!: string;
}
