import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';

export const API_KEY_ROLES = ['TENANT_ADMIN', 'TENANT_VIEWER'] as const;
export type ApiKeyRole = (typeof API_KEY_ROLES)[number];

export class CreateApiKeyDto {
  @ApiProperty({ example: 'ci-pipeline', maxLength: 100 })
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name!: string;

  @ApiPropertyOptional({ enum: API_KEY_ROLES, default: 'TENANT_VIEWER' })
  @IsOptional()
  @IsIn(API_KEY_ROLES)
  role?: ApiKeyRole;
}

export class OperatorCreateApiKeyDto extends CreateApiKeyDto {
  @ApiProperty({ example: 'acme' })
  @IsString()
  @Matches(/^[a-z0-9][a-z0-9-]{0,63}$/, { message: 'must be a tenant id (slug)' })
  tenantId!: string;
}

export class ApiKeyView {
  @ApiProperty() id!: number;
  @ApiProperty() tenantId!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'First characters of the key, to recognise it' }) prefix!: string;
  @ApiProperty({ enum: API_KEY_ROLES }) role!: string;
  @ApiProperty() createdAt!: number;
  @ApiProperty({ type: Number, nullable: true }) revokedAt!: number | null;
}

export class CreatedApiKeyView extends ApiKeyView {
  @ApiProperty({ description: 'The key in clear. Shown once: only its SHA-256 is stored. Send as `X-API-Key: <key>`.' })
  key!: string;
}
