import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';

export class ConfigFileDto {
  @ApiProperty({ description: 'The tasks-as-code file (YAML text, schema at GET /api/config/schema)' })
  @IsString()
  @MaxLength(8_000_000)
  file!: string;

  @ApiPropertyOptional({ default: false, description: 'Also delete the tasks, dependencies, calendars and webhooks the file does not name' })
  @IsOptional()
  @IsBoolean()
  prune?: boolean;
}

export class FieldChangeView {
  @ApiProperty({ example: 'trigger.expression' }) field!: string;
  @ApiProperty({ description: 'Value now (absent: none)' }) before!: unknown;
  @ApiProperty({ description: 'Value after (absent: none)' }) after!: unknown;
}

export class NextFireTimesView {
  @ApiProperty({ type: [Number] }) before!: number[];
  @ApiProperty({ type: [Number] }) after!: number[];
}

export class PlannedChangeView {
  @ApiProperty({ enum: ['retention', 'calendar', 'webhook', 'task', 'dependency'] }) kind!: string;
  @ApiProperty({ description: 'The object\'s name (`parent → child` for a dependency)' }) name!: string;
  @ApiProperty({ enum: ['create', 'update', 'delete'] }) action!: string;
  @ApiProperty({ type: [FieldChangeView] }) fields!: FieldChangeView[];
  @ApiPropertyOptional({ type: NextFireTimesView, description: 'A task whose fire times change: its next 3 before and after (epoch ms)' }) nextFireTimes?: NextFireTimesView;
}

export class ConfigPlanView {
  @ApiProperty({ type: [PlannedChangeView] }) changes!: PlannedChangeView[];
  @ApiProperty({ description: 'Whether the changes were made (apply) or only planned' }) applied!: boolean;
}
