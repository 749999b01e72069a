import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { NewUserCredentialsDto, UserView } from '../../users/dto/user.dto';
import { IsDisplayName, OptionalNotNull } from '../../common/validation';
import { TENANT_ID_PATTERN } from '../../common/tenant-id';
import { ENGINE_SILENT_MS } from '../../common/live-engines';
import type * as Api from '../../api-types';

export const ENGINE_GROUP_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** Longest BACKLOG_LATE threshold a tenant may have: 7 days. */
export const MAX_BACKLOG_ALARM_MS = 7 * 86_400_000;

/** The engine group a tenant is bound to when the request names none. */
export const DEFAULT_ENGINE_GROUP = 'default';

/** A tenant's display name: the tenants.name column's varchar(200). */
const TENANT_NAME_MAX_LENGTH = 200;

export class CreateTenantDto {
  @ApiProperty({ example: 'acme', description: 'Slug: lowercase letters, digits, hyphens' })
  @IsString()
  @Matches(TENANT_ID_PATTERN, { message: 'must be a slug: lowercase letters, digits and hyphens, 1-63 characters, not starting with a hyphen' })
  id!: string;

  @ApiProperty({ example: 'Acme Corp', maxLength: TENANT_NAME_MAX_LENGTH, description: 'Free text: any characters but control ones (a NUL, a newline), not blank' })
  @IsString()
  @IsDisplayName(TENANT_NAME_MAX_LENGTH)
  name!: string;

  @ApiPropertyOptional({
    default: DEFAULT_ENGINE_GROUP,
    description: 'Engine group serving the tenant; must exist (an engine creates the groups it serves when it starts). Default `default`',
  })
  @IsOptional()
  @IsString()
  @Matches(ENGINE_GROUP_PATTERN, { message: 'must be an engine group name' })
  engineGroup?: string;

  @ApiPropertyOptional({ default: 1000, description: "Tenant token bucket refill rate (runs/s), on each engine: a group of k engines sends up to k × this" })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  ratePerSec?: number;

  @ApiPropertyOptional({ default: 2000, description: "Tenant token bucket capacity, on each engine" })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  burst?: number;

  @ApiPropertyOptional({
    default: 1,
    description:
      "The tenant's weight when the engines divide the runs they hold among the tenants with due work (weighted max-min fair shares): a tenant of share 2 gets twice the room of a tenant of share 1 when both want more than there is. 1–100",
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  claimShare?: number;

  @ApiPropertyOptional({
    type: NewUserCredentialsDto,
    description: "The tenant's first TENANT_ADMIN, created with the tenant (both or neither). Omitted: no user yet",
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => NewUserCredentialsDto)
  admin?: NewUserCredentialsDto;
  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    example: ['10.0.0.0/8', '*.svc.cluster.local'],
    description:
      "The tenant's networks, one list for its executors and its webhooks: CIDR ranges and addresses, and host names or `*.domain` (matched by name). Executors must be in them (a host name URL by a name entry; no DNS lookup); webhooks may reach public addresses and these (loopback, private, CGNAT and ULA addresses only when listed). At most 100 entries. null or omitted (default): executors anywhere, webhooks to public addresses only. Link-local and cloud metadata addresses are refused whatever the list says. Errors name `executorNetworks[i]`",
  })
  @IsOptional()
  executorNetworks?: string[] | null;
}

export class UpdateTenantDto {
  @ApiPropertyOptional({ maxLength: TENANT_NAME_MAX_LENGTH, description: 'Free text: any characters but control ones (a NUL, a newline), not blank' })
  @OptionalNotNull('to keep it as it is')
  @IsString()
  @IsDisplayName(TENANT_NAME_MAX_LENGTH)
  name?: string;

  @ApiPropertyOptional({
    description:
      `Moves the tenant's tasks and its runs not ended yet to this group, whose engines claim them from then on; a run an engine of the old group holds finishes there, under its lease. The group must exist (400) and a live engine must serve it — one UP with a heartbeat in the last ${ENGINE_SILENT_MS / 1000} s (409 naming engineGroup otherwise) — unless \`allowUnserved\``,
  })
  @OptionalNotNull('to keep it as it is')
  @IsString()
  @Matches(ENGINE_GROUP_PATTERN, { message: 'must be an engine group name' })
  engineGroup?: string;

  @ApiPropertyOptional({
    description:
      "true: move the tenant to `engineGroup` even if no live engine serves it (an engine about to start there, a group parked on purpose): its tasks do not fire and its runs wait until one does. Omitted or false: such a move is refused (409). Not stored",
  })
  @IsOptional()
  @IsBoolean()
  allowUnserved?: boolean;

  @ApiPropertyOptional({ description: 'Tenant token bucket refill rate (runs/s), on each engine. Omitted: unchanged' })
  @OptionalNotNull('to keep it as it is')
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  ratePerSec?: number;

  @ApiPropertyOptional({ description: 'Tenant token bucket capacity, on each engine. Omitted: unchanged' })
  @OptionalNotNull('to keep it as it is')
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  burst?: number;

  @ApiPropertyOptional({
    description:
      "The tenant's weight when the engines divide the runs they hold among the tenants with due work (weighted max-min fair shares): a tenant of share 2 gets twice the room of a tenant of share 1 when both want more than there is. 1–100; omitted: unchanged",
  })
  @OptionalNotNull('to keep it as it is')
  @IsInt()
  @Min(1)
  @Max(100)
  claimShare?: number;

  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    example: ['10.0.0.0/8', '*.svc.cluster.local'],
    description:
      "The tenant's networks, one list for its executors and its webhooks: CIDR ranges and addresses, and host names or `*.domain` (matched by name). Executors must be in them (a host name URL by a name entry; no DNS lookup); webhooks may reach public addresses and these (loopback, private, CGNAT and ULA addresses only when listed). At most 100 entries. null: back to the default (executors anywhere, webhooks to public addresses only); omitted: unchanged. Link-local and cloud metadata addresses are refused whatever the list says. Errors name `executorNetworks[i]`",
  })
  @IsOptional()
  executorNetworks?: string[] | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    minimum: 0,
    maximum: MAX_BACKLOG_ALARM_MS,
    description:
      "BACKLOG_LATE alarm when the tenant's oldest due run has waited longer than this many ms (once per episode). 0: never for this tenant; null: back to the engines' BATON_BACKLOG_ALARM_MS (default 60000); omitted: unchanged",
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_BACKLOG_ALARM_MS)
  backlogAlarmMs?: number | null;

  @ApiPropertyOptional({ description: "true: the tenant's users sign in only through single sign-on (OIDC, LDAP); their password logins are refused (403). API keys keep working. Omitted: unchanged" })
  @OptionalNotNull('to keep it as it is')
  @IsBoolean()
  ssoRequired?: boolean;
}

export class TenantView implements Api.Tenant {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() engineGroup!: string;
  @ApiProperty() ratePerSec!: number;
  @ApiProperty() burst!: number;
  @ApiProperty({ description: "Weight in the engines' fair division of held runs (1 by default)" }) claimShare!: number;
  @ApiProperty({ type: [String], nullable: true, description: "Where the tenant's executors may live (null: any URL but link-local and metadata addresses)" })
  executorNetworks!: string[] | null;
  @ApiProperty({ type: Number, nullable: true, description: "The tenant's BACKLOG_LATE threshold (ms; 0: none); null: the engines' BATON_BACKLOG_ALARM_MS" })
  backlogAlarmMs!: number | null;
  @ApiProperty({ description: "The tenant's users sign in only through single sign-on (password logins refused; API keys work)" }) ssoRequired!: boolean;
  @ApiProperty() createdAt!: number;
  @ApiPropertyOptional({ description: 'HMAC key for the tenant\'s executors: in the answer to the creation only (shown once; rotation gives a new one)' })
  executorSecret?: string;
  @ApiPropertyOptional({
    example: 't_3f9c0a1b2c4d',
    description:
      "The tenant's `tenant` label on an engine's `/metrics` when it needs no token (BATON_METRICS_TOKEN unset; with one, the label is the tenant id): keyed with the cluster's secret, the same on every engine. In the list and get answers",
  })
  metricsLabel?: string;
}

export class CreatedTenantView extends TenantView implements Api.CreatedTenant {
  @ApiPropertyOptional({ type: UserView, description: "The tenant's first admin, when the request had `admin` (never its password)" })
  admin?: UserView;
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

export class EngineGroupView implements Api.EngineGroup {
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty() createdAt!: number;
  @ApiProperty({ type: [String], description: 'Tenants bound to the group' }) tenants!: string[];
  @ApiProperty({ description: `Engines serving the group now: UP with a heartbeat in the last ${ENGINE_SILENT_MS / 1000} s. 0 with tenants bound: their tasks do not fire` })
  liveEngines!: number;
}

export class EngineNodeView implements Api.EngineNode {
  @ApiProperty() id!: string;
  @ApiProperty({ type: [String] }) groups!: string[];
  @ApiProperty() host!: string;
  @ApiProperty() pid!: number;
  @ApiProperty() url!: string;
  @ApiProperty() slots!: number;
  @ApiProperty() startedAt!: number;
  @ApiProperty() heartbeatAt!: number;
  @ApiProperty({ type: Number, nullable: true, description: "Database − engine clock (ms) at its last heartbeat: the engine schedules corrected by it; beyond BATON_CLOCK_SKEW_ALARM_MS a CLOCK_SKEW alarm, beyond BATON_CLOCK_SKEW_STOP_MS it claims nothing. Null until measured." })
  clockOffsetMs!: number | null;
  @ApiProperty() state!: string;
}
