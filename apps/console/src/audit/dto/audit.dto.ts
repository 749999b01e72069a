import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { InstantQuery, PageQuery } from '../../common/query';
import type * as Api from '../../api-types';

export class AuditQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'Who: a username, or `api-key:<name>`' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  actor?: string;

  @ApiPropertyOptional({ description: 'What: an action, e.g. `task.update`, `auth.login-failed`' })
  @IsOptional()
  @IsString()
  @Matches(/^[a-z-]+\.[a-z-]+$/, { message: 'must be an action such as task.update' })
  action?: string;

  @ApiPropertyOptional({ description: 'The object type: task, user, api-key, calendar, dependency, webhook, retention, run, alarm, tenant, engine-group, executor-secret, session' })
  @IsOptional()
  @IsString()
  @Matches(/^[a-z-]{1,32}$/, { message: 'must be an object type such as task' })
  objectType?: string;

  @ApiPropertyOptional({ description: 'The object id (with objectType)' })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  objectId?: string;

  @InstantQuery('At or after (epoch ms)', { min: 0 })
  from?: number;

  @InstantQuery('Before (epoch ms)', { min: 0 })
  to?: number;
}

export class OperatorAuditQuery extends AuditQuery {
  @ApiPropertyOptional({ description: "One tenant's records (default: every tenant's and the operators')" })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  tenantId?: string;
}

export class AuditActorView {
  @ApiProperty({ enum: ['user', 'apiKey', 'anonymous', 'inboundWebhook', 'engine'] }) kind!: 'user' | 'apiKey' | 'anonymous' | 'inboundWebhook' | 'engine';
  @ApiProperty() name!: string;
  @ApiProperty({ type: Number, nullable: true }) userId!: number | null;
  @ApiProperty({ type: Number, nullable: true }) apiKeyId!: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'Client address' }) address!: string | null;
}

export class AuditRecordView implements Api.AuditRecord {
  @ApiProperty() id!: number;
  @ApiProperty({ description: 'Epoch ms' }) at!: number;
  @ApiProperty({ type: String, nullable: true }) tenantId!: string | null;
  @ApiProperty({ type: AuditActorView }) actor!: AuditActorView;
  @ApiProperty() action!: string;
  @ApiProperty() objectType!: string;
  @ApiProperty({ type: String, nullable: true }) objectId!: string | null;
  @ApiProperty({ nullable: true, description: 'Before the change, secrets redacted' }) before!: unknown;
  @ApiProperty({ nullable: true, description: 'After the change, secrets redacted. A config.apply: prune, counts (per kind, created/updated/deleted), and changes (each with its fields and their values before and after, a deletion with the object as it was in `before`; one whose values did not fit, its field names and valuesLeftOut; changesLeftOut: those that did not fit)' }) after!: unknown;
}

export class AuditPage implements Api.Page<AuditRecordView> {
  @ApiProperty({ type: [AuditRecordView] }) items!: AuditRecordView[];
  @ApiProperty({ type: String, nullable: true }) nextCursor!: string | null;
}
