import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { ROLES, type Role } from '@baton/domain';

/** Tenant ids are slugs: they name the alarm topic `baton.alarms.<id>` and appear in URLs. */
export const TENANT_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;
export const ENGINE_GROUP_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
export const USERNAME_PATTERN = /^[A-Za-z0-9._@-]{1,100}$/;

export class CreateTenantDto {
  @ApiProperty({ example: 'acme', description: 'Slug: lowercase letters, digits, hyphens' })
  @IsString()
  @Matches(TENANT_ID_PATTERN, { message: 'must be a slug: lowercase letters, digits and hyphens, 1-63 characters, not starting with a hyphen' })
  id!: string;

  @ApiProperty({ example: 'Acme Corp' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  @ApiProperty({ example: 'default', description: 'Engine group serving the tenant; must exist' })
  @IsString()
  @Matches(ENGINE_GROUP_PATTERN, { message: 'must be an engine group name' })
  engineGroup!: string;

  @ApiPropertyOptional({ default: 1000, description: 'Tenant token bucket refill rate (runs/s)' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  ratePerSec?: number;

  @ApiPropertyOptional({ default: 2000, description: 'Tenant token bucket capacity' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  burst?: number;
}

export class UpdateTenantDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ description: "Moves the tenant's tasks and not-yet-claimed runs to this group" })
  @IsOptional()
  @IsString()
  @Matches(ENGINE_GROUP_PATTERN, { message: 'must be an engine group name' })
  engineGroup?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  ratePerSec?: number;

  @ApiPropertyOptional()
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  burst?: number;
}

export class TenantView {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() engineGroup!: string;
  @ApiProperty() ratePerSec!: number;
  @ApiProperty() burst!: number;
  @ApiProperty() createdAt!: number;
  @ApiPropertyOptional({ description: 'HMAC key for the tenant\'s executors (on create and get only)' })
  executorSecret?: string;
}

export class CreateEngineGroupDto {
  @ApiProperty({ example: 'default' })
  @IsString()
  @Matches(ENGINE_GROUP_PATTERN, { message: 'must be 1-64 characters: A-Z a-z 0-9 . _ -' })
  name!: string;

  @ApiPropertyOptional({ default: '' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string;
}

export class UpdateEngineGroupDto {
  @ApiProperty()
  @IsString()
  @MaxLength(500)
  description!: string;
}

export class EngineGroupView {
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty() createdAt!: number;
  @ApiProperty({ type: [String], description: 'Tenants bound to the group' }) tenants!: string[];
}

export class EngineNodeView {
  @ApiProperty() id!: string;
  @ApiProperty({ type: [String] }) groups!: string[];
  @ApiProperty() host!: string;
  @ApiProperty() pid!: number;
  @ApiProperty() url!: string;
  @ApiProperty() slots!: number;
  @ApiProperty() startedAt!: number;
  @ApiProperty() heartbeatAt!: number;
  @ApiProperty() state!: string;
}

export class CreateUserDto {
  @ApiProperty({ example: 'alice' })
  @IsString()
  @Matches(USERNAME_PATTERN, { message: 'must be 1-100 characters: A-Z a-z 0-9 . _ @ -' })
  username!: string;

  @ApiProperty({ minLength: 8 })
  @IsString()
  @MinLength(8)
  @MaxLength(200)
  password!: string;

  @ApiProperty({ enum: ROLES })
  @IsIn(ROLES)
  role!: Role;

  @ApiPropertyOptional({ description: 'Required for tenant roles, absent for OPERATOR' })
  @IsOptional()
  @IsString()
  @Matches(TENANT_ID_PATTERN, { message: 'must be a tenant id (slug)' })
  tenantId?: string;
}

export class UserView {
  @ApiProperty() id!: number;
  @ApiProperty() username!: string;
  @ApiProperty({ enum: ROLES }) role!: Role;
  @ApiProperty({ type: String, nullable: true }) tenantId!: string | null;
  @ApiProperty() createdAt!: number;
}

export class TenantFilterQuery {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Matches(TENANT_ID_PATTERN, { message: 'must be a tenant id (slug)' })
  tenantId?: string;
}
