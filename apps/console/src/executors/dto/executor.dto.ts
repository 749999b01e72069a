import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { EXECUTOR_STATES, type ExecutorState } from '@baton/domain';

/**
 * Which executor secret the executor's latest heartbeat was signed with: CURRENT; PREVIOUS (still
 * valid during a rotation's overlap window: restart it with the new secret before it ends);
 * OUTDATED (an expired secret: its heartbeats are refused, it needs the new secret); UNKNOWN
 * (registered before the version was recorded).
 */
export const EXECUTOR_SECRET_STATUSES = ['CURRENT', 'PREVIOUS', 'OUTDATED', 'UNKNOWN'] as const;
export type ExecutorSecretStatus = (typeof EXECUTOR_SECRET_STATUSES)[number];

export class ExecutorView {
  @ApiProperty() id!: number;
  @ApiProperty() app!: string;
  @ApiProperty() url!: string;
  @ApiProperty() capacity!: number;
  @ApiProperty() inFlight!: number;
  @ApiProperty({ enum: EXECUTOR_STATES }) state!: ExecutorState;
  @ApiProperty() registeredAt!: number;
  @ApiProperty() heartbeatAt!: number;
  @ApiProperty({ type: [String], description: 'The handlers its last heartbeat offered' }) handlers!: string[];
  @ApiProperty({ enum: EXECUTOR_SECRET_STATUSES, description: 'Whether it uses the current executor secret (see the Connect panel to rotate)' })
  secret!: ExecutorSecretStatus;
}

export class ExecutorQuery {
  @ApiPropertyOptional({ description: 'Executor app name' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  app?: string;

  @ApiPropertyOptional({ enum: EXECUTOR_STATES })
  @IsOptional()
  @IsIn(EXECUTOR_STATES)
  state?: ExecutorState;
}
