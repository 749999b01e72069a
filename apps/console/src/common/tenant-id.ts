import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';

/** Tenant ids are slugs: they name the alarm topic `baton.alarms.<id>` and appear in URLs. */
export const TENANT_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** An operator list's `?tenantId=` filter (absent: every tenant). */
export class TenantFilterQuery {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Matches(TENANT_ID_PATTERN, { message: 'must be a tenant id (slug)' })
  tenantId?: string;
}
