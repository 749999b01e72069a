import { ApiProperty } from '@nestjs/swagger';
import { RUN_STATES, type RunState } from '@baton/domain';
import { IntQuery } from '../../common/query';

export const DEFAULT_STATS_WINDOW_MS = 24 * 60 * 60 * 1000;
export const MAX_STATS_WINDOW_MS = 90 * 24 * 60 * 60 * 1000;

export class StatsQuery {
  @IntQuery(`Window ending now, in ms (default 24 h, at most 90 days)`, 1, MAX_STATS_WINDOW_MS)
  windowMs?: number;
}

export class DistributionView {
  @ApiProperty({ description: 'Runs the figure is computed over' }) count!: number;
  @ApiProperty({ type: Number, nullable: true }) p50!: number | null;
  @ApiProperty({ type: Number, nullable: true }) p95!: number | null;
}

export class StatsView {
  @ApiProperty({ type: Number, nullable: true, description: 'The task, or null for the whole tenant' }) taskId!: number | null;
  @ApiProperty() windowMs!: number;
  @ApiProperty({ description: 'Window start (scheduled time, inclusive), epoch ms' }) from!: number;
  @ApiProperty({ description: 'Window end (now, inclusive), epoch ms' }) to!: number;
  @ApiProperty({ description: 'Runs scheduled in the window' }) total!: number;
  @ApiProperty({
    type: 'object',
    properties: Object.fromEntries(RUN_STATES.map((s) => [s, { type: 'number' }])),
    description: 'Runs per state',
  })
  counts!: Record<RunState, number>;
  @ApiProperty({ type: Number, nullable: true, description: 'SUCCEEDED / (SUCCEEDED + FAILED + TIMED_OUT)' })
  successRate!: number | null;
  @ApiProperty({ type: DistributionView, description: 'finishedAt − startedAt, ms' }) durationMs!: DistributionView;
  @ApiProperty({ type: DistributionView, description: 'dispatchedAt − scheduledAt of runs on their first attempt, ms (a retry waits for its backoff on purpose: see retryWaitMs)' })
  latenessMs!: DistributionView;
  @ApiProperty({ type: DistributionView, description: 'dueAt − scheduledAt of runs on a retry attempt: the backoff they waited, ms' }) retryWaitMs!: DistributionView;
  @ApiProperty({ description: 'True when the percentiles were computed over the newest MAX rows only' }) sampled!: boolean;
}
