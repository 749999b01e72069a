import { ApiProperty } from '@nestjs/swagger';
import { IntQuery } from '../../common/query';
import type * as Api from '../../api-types';

/** Most tenants on one operator load board. */
export const MAX_LOAD_BOARD_TENANTS = 500;
/** Tenants on the operator load board when the request does not say. */
export const DEFAULT_LOAD_BOARD_TENANTS = 50;

export class LoadCountView implements Api.LoadCount {
  @ApiProperty({ description: 'The count, up to the cap (`countCap`)' }) count!: number;
  @ApiProperty({ description: 'Counting stopped at the cap: there are more than `count` ("10,000+")' }) capped!: boolean;
}

export class ExecutorCapacityView implements Api.ExecutorCapacity {
  @ApiProperty({ description: 'UP executors' }) up!: number;
  @ApiProperty({ description: 'Sum of their pool sizes, from their last heartbeats' }) capacity!: number;
  @ApiProperty({ description: 'Sum of the runs they reported in flight: running, waiting for a worker, and sent ahead waiting for their instant (their load is this less the tenant\'s `sentAhead`)' }) inFlight!: number;
}

export class TenantLoadView implements Api.TenantLoad {
  @ApiProperty() tenantId!: string;
  @ApiProperty() engineGroup!: string;
  @ApiProperty({ type: LoadCountView, description: 'PENDING and RETRY_WAIT runs whose due time has come: waiting for an engine to claim them' }) due!: LoadCountView;
  @ApiProperty({ type: LoadCountView, description: 'CLAIMED runs: held by engines until their instant, a token or an executor credit' }) held!: LoadCountView;
  @ApiProperty({ type: LoadCountView, description: 'DISPATCHED and ACCEPTED runs whose instant has come: at executors, running or waiting there for a worker (a fan-out run counts while its shards run). The executors\' load' })
  inFlight!: LoadCountView;
  @ApiProperty({ type: LoadCountView, description: 'DISPATCHED and ACCEPTED runs sent ahead of their instant (BATON_SEND_AHEAD_MS), waiting for it at their executor: a place there, no worker — not load' })
  sentAhead!: LoadCountView;
  @ApiProperty({ type: ExecutorCapacityView }) executors!: ExecutorCapacityView;
  @ApiProperty({ type: Number, nullable: true, description: 'Due time of the oldest due run (epoch ms); null when nothing is due' }) oldestDueAt!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: '`at` − `oldestDueAt`: how long the oldest due run has waited; null when nothing is due' }) oldestDueAgeMs!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'When the BACKLOG_LATE alarm of the episode going on was raised; null when none is going on' })
  backlogLateSince!: number | null;
}

export class LoadBoardView implements Api.LoadBoard {
  @ApiProperty({ description: 'The instant the figures are of (epoch ms)' }) at!: number;
  @ApiProperty({ description: 'Counts stop here: each is read from an index range with a LIMIT, so a large backlog costs no more than this many entries' }) countCap!: number;
  @ApiProperty({ description: 'Tenants in all' }) tenants!: number;
  @ApiProperty({ type: [TenantLoadView] }) items!: TenantLoadView[];
}

export class OperatorLoadQuery {
  @IntQuery(`Tenants listed, the oldest due run first: 1-${MAX_LOAD_BOARD_TENANTS} (default ${DEFAULT_LOAD_BOARD_TENANTS})`, 1, MAX_LOAD_BOARD_TENANTS)
  limit?: number;
}
