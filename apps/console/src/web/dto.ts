import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsOptional, IsString } from 'class-validator';
import { REPEATED_TIME_POLICIES, RUN_STATES, SKIPPED_TIME_POLICIES, type DstMark, type RunState } from '@baton/domain';
import { IntQuery } from '../common/query';
import type * as Api from '../api-types';

/** Keeps the value as sent: the domain's parseCron judges it. */
const Raw = () => Transform(({ obj, key }) => (obj as Record<string, unknown>)[key]);

export class CronPreviewDto {
  @ApiProperty({ type: String, example: '0 */5 * * * *', description: '6 fields (seconds first) or 5' })
  @IsOptional()
  @Raw()
  expression?: unknown;

  @ApiPropertyOptional({ type: String, example: 'Europe/Berlin', default: 'UTC', description: 'IANA time zone' })
  @IsOptional()
  @Raw()
  timeZone?: unknown;

  @ApiPropertyOptional({ enum: REPEATED_TIME_POLICIES, default: 'ONCE_LATER', description: "A local time the clocks repeat (the task trigger's repeatedTime)" })
  @IsOptional()
  @Raw()
  repeatedTime?: unknown;

  @ApiPropertyOptional({ enum: SKIPPED_TIME_POLICIES, default: 'SKIP', description: "A local time the clocks skip (the task trigger's skippedTime)" })
  @IsOptional()
  @Raw()
  skippedTime?: unknown;

  @ApiPropertyOptional({ type: Number, description: 'Fire times after this instant (epoch ms); default now' })
  @IsOptional()
  @Raw()
  after?: unknown;

  @ApiPropertyOptional({ type: Number, default: 10, description: 'How many fire times, 1-50' })
  @IsOptional()
  @Raw()
  count?: unknown;
}

export class CronPreviewView implements Api.CronPreview {
  @ApiProperty() expression!: string;
  @ApiProperty({ description: 'Canonical IANA time zone' }) timeZone!: string;
  @ApiProperty({ type: [Number], description: 'The next fire times, epoch ms' }) next!: number[];
  @ApiProperty({ type: [String], description: 'The same as ISO-8601 instants (UTC)' }) nextIso!: string[];
  @ApiProperty({
    type: [String],
    nullable: true,
    description:
      'For each fire time, what daylight saving did to it, or null: REPEATED_EARLIER / REPEATED_LATER (its local time occurs twice; this is the first / second occurrence), FIRED_LATE (a skipped local time fires here, just after the gap), AFTER_SKIPPED (a skipped local time just before this fire did not fire)',
  })
  dst!: (DstMark | null)[];
}

export class TaskSummaryQuery {
  @ApiPropertyOptional({ description: 'Comma-separated task ids (default: every task of the tenant, at most 500)' })
  @IsOptional()
  @IsString()
  ids?: string;
}

export class LastRunView implements Api.LastRun {
  @ApiProperty() id!: number;
  @ApiProperty({ enum: RUN_STATES }) state!: RunState;
  @ApiProperty() scheduledAt!: number;
  @ApiProperty({ type: Number, nullable: true }) finishedAt!: number | null;
  @ApiProperty({ type: String, nullable: true }) error!: string | null;
}

export class TaskSummaryView implements Api.TaskSummary {
  @ApiProperty() taskId!: number;
  @ApiProperty({ type: LastRunView, nullable: true, description: 'The newest run that has begun (not a planned future one)' })
  lastRun!: LastRunView | null;
  @ApiProperty({ type: LastRunView, nullable: true, description: 'The newest finished run' })
  lastResult!: LastRunView | null;
}

export class StatsSeriesQuery {
  @IntQuery('Window ending now, ms (default 1 h, at most 7 days)', 60_000, 7 * 24 * 3600_000)
  windowMs?: number;

  @IntQuery('Bucket width, ms (default 60 000), rounded up to whole minutes (whole hours for windows over 6 h); at most 500 buckets', 1000, 24 * 3600_000)
  bucketMs?: number;

  @IntQuery('Only runs of this task', 1)
  taskId?: number;
}

export class SeriesBucketView implements Api.SeriesBucket {
  @ApiProperty({ description: 'Bucket start, epoch ms; the bucket holds the runs that ended in it' }) t!: number;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'number' }, description: 'Runs per state' }) counts!: Partial<Record<RunState, number>>;
  @ApiProperty({ type: Number, nullable: true }) successRate!: number | null;
  @ApiProperty({ type: Number, nullable: true }) durationP50!: number | null;
  @ApiProperty({ type: Number, nullable: true }) durationP95!: number | null;
  @ApiProperty({ type: Number, nullable: true }) latenessP50!: number | null;
  @ApiProperty({ type: Number, nullable: true }) latenessP95!: number | null;
  @ApiProperty({ description: 'Runs of the bucket whose last attempt started more than 20 ms before its instant' }) earlyStarts!: number;
}

export class StatsSeriesView implements Api.StatsSeries {
  @ApiProperty({ type: Number, nullable: true }) taskId!: number | null;
  @ApiProperty() from!: number;
  @ApiProperty() to!: number;
  @ApiProperty() bucketMs!: number;
  @ApiProperty({ type: [SeriesBucketView] }) buckets!: SeriesBucketView[];
  @ApiProperty({ description: 'True when the runs not rolled up yet were too many to read all' }) sampled!: boolean;
}
