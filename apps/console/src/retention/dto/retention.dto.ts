import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsOptional } from 'class-validator';
import type * as Api from '../../api-types';

const Raw = () => Transform(({ obj, key }) => (obj as Record<string, unknown>)[key]);

/** A tenant's retention as sent; null or absent: the cluster's default. libs/domain validateRetention decides. */
export class TenantRetentionDto {
  @ApiPropertyOptional({ type: Number, nullable: true, example: 604_800_000, description: 'Ended runs (with their logs) are kept this long after they ended, ms; at most the ceiling' })
  @IsOptional()
  @Raw()
  runsMs?: unknown;

  @ApiPropertyOptional({ type: Number, nullable: true, description: 'Run logs are kept this long after their run ended, ms (never longer than the runs)' })
  @IsOptional()
  @Raw()
  logsMs?: unknown;

  @ApiPropertyOptional({ type: Number, nullable: true, description: 'Alarms are kept this long after they were raised, ms' })
  @IsOptional()
  @Raw()
  alarmsMs?: unknown;

  @ApiPropertyOptional({ type: Number, nullable: true, example: 10, description: "The newest this many runs of every task are kept whatever their age (0 or null: none); at most the ceiling's" })
  @IsOptional()
  @Raw()
  minRunsKept?: unknown;
}

/** One task's override: keep its runs longer or shorter than its tenant (up to the ceiling), and its newest N. */
export class TaskRetentionDto {
  @ApiPropertyOptional({ type: Number, nullable: true, description: "The task's ended runs are kept this long, ms; null: the tenant's" })
  @IsOptional()
  @Raw()
  runsMs?: unknown;

  @ApiPropertyOptional({ type: Number, nullable: true, description: "The task's newest this many runs are kept whatever their age, at most the ceiling's; null: the tenant's" })
  @IsOptional()
  @Raw()
  minRunsKept?: unknown;
}

export class RetentionValuesView implements Api.RetentionValues {
  @ApiProperty() runsMs!: number;
  @ApiProperty() logsMs!: number;
  @ApiProperty() alarmsMs!: number;
  @ApiProperty({ description: 'Newest runs of each task kept whatever their age; 0: none' }) minRunsKept!: number;
}

export class StoredRetentionView implements Api.StoredRetention {
  @ApiProperty({ type: Number, nullable: true }) runsMs!: number | null;
  @ApiProperty({ type: Number, nullable: true }) logsMs!: number | null;
  @ApiProperty({ type: Number, nullable: true }) alarmsMs!: number | null;
  @ApiProperty({ type: Number, nullable: true }) minRunsKept!: number | null;
}

export class TaskRetentionView implements Api.TaskRetention {
  @ApiProperty() taskId!: number;
  @ApiProperty({ type: Number, nullable: true }) runsMs!: number | null;
  @ApiProperty({ type: Number, nullable: true }) minRunsKept!: number | null;
  @ApiProperty({ type: RetentionValuesView, description: 'What the engines apply to this task' }) effective!: RetentionValuesView;
}

export class RetentionView implements Api.Retention {
  @ApiProperty({ type: RetentionValuesView, description: "The cluster's ceilings (configuration): no policy keeps longer, nor more than `minRunsKept` runs of a task past `runsMs`" }) ceiling!: RetentionValuesView;
  @ApiProperty({ type: StoredRetentionView, description: "The tenant's stored policy; null fields take the ceiling" }) tenant!: StoredRetentionView;
  @ApiProperty({ type: RetentionValuesView, description: 'What the engines apply to tasks without an override' }) effective!: RetentionValuesView;
  @ApiProperty({ type: [TaskRetentionView] }) tasks!: TaskRetentionView[];
}
