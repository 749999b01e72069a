import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { IntQuery } from '../../common/query';
import { RUN_STATES, type RunState } from '@baton/domain';
import { LoadCountView } from '../../load/dto/load.dto';
import type * as Api from '../../api-types';

/** Tenants per page of the operator's overview: the default, and the most. */
export const DEFAULT_DASHBOARDS = 20;
export const MAX_DASHBOARDS = 100;

export class BacklogView {
  @ApiProperty({ type: LoadCountView, description: 'PENDING and RETRY_WAIT runs whose due time has come' }) due!: LoadCountView;
  @ApiProperty({ type: LoadCountView, description: 'CLAIMED runs held by engines' }) held!: LoadCountView;
  @ApiProperty({ type: LoadCountView, description: 'DISPATCHED and ACCEPTED runs whose instant has come: at executors, running or waiting there for a worker' }) inFlight!: LoadCountView;
  @ApiProperty({ type: LoadCountView, description: 'DISPATCHED and ACCEPTED runs sent ahead of their instant, waiting for it at their executor: not load' }) sentAhead!: LoadCountView;
  @ApiProperty({ type: Number, nullable: true, description: 'How long the oldest due run has waited (ms); null when nothing is due' }) oldestDueAgeMs!: number | null;
}

export class DashboardView implements Api.Dashboard {
  @ApiProperty() tenantId!: string;
  @ApiProperty({ description: 'The instant the figures are of (epoch ms)' }) at!: number;
  @ApiProperty({ description: 'The window of the run figures (the last hour)' }) windowMs!: number;
  @ApiProperty({
    type: 'object',
    properties: Object.fromEntries(RUN_STATES.map((s) => [s, { type: 'number' }])),
    description: 'Ended states: runs that ended in the window; the others: runs in that state now',
  })
  runs!: Record<RunState, number>;
  @ApiProperty({ type: Number, nullable: true, description: 'SUCCEEDED / (SUCCEEDED + FAILED + TIMED_OUT) in the window; null with none ended' }) successRate!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: "p95 of the first attempts' lateness in the window, ms: an upper bound (histogram buckets, see /api/stats percentileError); null with none" })
  latenessP95Ms!: number | null;
  @ApiProperty({ description: "Runs ended in the window whose last attempt started more than 20 ms before its instant (a defect: see /api/stats earlyStarts)" }) earlyStarts!: number;
  @ApiProperty({ type: LoadCountView, description: 'Alarms not acknowledged, counted up to 1,000' }) openAlarms!: LoadCountView;
  @ApiProperty({ description: 'Executors UP' }) executorsUp!: number;
  @ApiProperty({ type: BacklogView }) backlog!: BacklogView;
}

export class DashboardPage implements Api.Page<DashboardView> {
  @ApiProperty({ type: [DashboardView] }) items!: DashboardView[];
  @ApiProperty({ type: String, nullable: true }) nextCursor!: string | null;
}

export class DashboardsQuery {
  @ApiPropertyOptional({ description: 'Opaque cursor: the `nextCursor` of the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;

  @IntQuery(`Tenants per page, 1-${MAX_DASHBOARDS} (default ${DEFAULT_DASHBOARDS})`, 1, MAX_DASHBOARDS)
  limit?: number;
}
