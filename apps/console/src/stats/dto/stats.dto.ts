import { ApiProperty } from '@nestjs/swagger';
import { RUN_STATES, type RunState } from '@baton/domain';
import { IntQuery } from '../../common/query';
import type * as Api from '../../api-types';

export const DEFAULT_STATS_WINDOW_MS = 24 * 60 * 60 * 1000;
export const MAX_STATS_WINDOW_MS = 90 * 24 * 60 * 60 * 1000;

export class StatsQuery {
  @IntQuery(`Window ending now, in ms (default 24 h, at most 90 days)`, 1, MAX_STATS_WINDOW_MS)
  windowMs?: number;
}

export class DistributionView implements Api.Distribution {
  @ApiProperty({ description: 'Runs the figure is computed over' }) count!: number;
  @ApiProperty({ type: Number, nullable: true }) p50!: number | null;
  @ApiProperty({ type: Number, nullable: true }) p95!: number | null;
}

export class StatsView implements Api.Stats {
  @ApiProperty({ type: Number, nullable: true, description: 'The task, or null for the whole tenant' }) taskId!: number | null;
  @ApiProperty() windowMs!: number;
  @ApiProperty({ description: 'Window start, epoch ms: now − windowMs rounded down to the minute (windows up to 6 h) or to the hour (longer ones), the rollups\' buckets' }) from!: number;
  @ApiProperty({ description: 'Window end (now, inclusive), epoch ms' }) to!: number;
  @ApiProperty({ description: 'Runs that ended in the window, plus the runs not ended yet' }) total!: number;
  @ApiProperty({
    type: 'object',
    properties: Object.fromEntries(RUN_STATES.map((s) => [s, { type: 'number' }])),
    description: 'Ended states: runs that ended in the window (by finishedAt). PENDING, CLAIMED, DISPATCHED, ACCEPTED, RETRY_WAIT: runs in that state now',
  })
  counts!: Record<RunState, number>;
  @ApiProperty({ type: Number, nullable: true, description: 'SUCCEEDED / (SUCCEEDED + FAILED + TIMED_OUT)' })
  successRate!: number | null;
  @ApiProperty({
    description:
      "Runs that ended in the window whose last attempt's handler started more than 20 ms before its instant (startedAt as the executor reported it): a defect, each also a RUN_STARTED_EARLY alarm. Not part of latenessMs, whose histogram starts at 0",
  })
  earlyStarts!: number;
  @ApiProperty({ type: DistributionView, description: 'finishedAt − startedAt, ms' }) durationMs!: DistributionView;
  @ApiProperty({ type: DistributionView, description: 'dispatchedAt − scheduledAt of runs on their first attempt, ms (a run sent ahead counts as dispatched at its instant, or when it left if later: never negative; a retry waits for its backoff on purpose: see retryWaitMs)' })
  latenessMs!: DistributionView;
  @ApiProperty({ type: DistributionView, description: 'dueAt − scheduledAt of runs on a retry attempt: the backoff they waited, ms' }) retryWaitMs!: DistributionView;
  @ApiProperty({ description: 'Percentiles are estimated from fixed histogram buckets: never below the true value, at most this fraction (or 1 ms) above it' }) percentileError!: number;
  @ApiProperty({ description: 'True when the runs not rolled up yet were too many to read all (more than 100,000): the newest seconds are then partly counted' }) sampled!: boolean;
}
