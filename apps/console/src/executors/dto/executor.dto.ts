import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { EXECUTOR_STATES, EXECUTOR_WIRES, type ExecutorState, type ExecutorWire, type JsonValue } from '@baton/domain';
import { EXECUTOR_SECRET_STATUSES, type ExecutorSecretStatus } from '../../api-types';
import type * as Api from '../../api-types';

export class ExecutorView implements Api.Executor {
  @ApiProperty() id!: number;
  @ApiProperty() app!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ description: 'Its pool size (workers), as its last heartbeat said' }) capacity!: number;
  @ApiProperty({ description: 'The runs its last heartbeat said it holds: running, waiting for a worker, and sent ahead waiting for their instant (`sentAhead` of them). Its load is `inFlight` − `sentAhead`' })
  inFlight!: number;
  @ApiProperty({ description: 'Runs the engines sent it ahead of their instant (BATON_SEND_AHEAD_MS) that wait there for it, as the engines count them now: a place there, no worker — not its load' })
  sentAhead!: number;
  @ApiProperty({ enum: EXECUTOR_STATES }) state!: ExecutorState;
  @ApiProperty() registeredAt!: number;
  @ApiProperty() heartbeatAt!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'When it stopped gracefully (its last heartbeat: draining, nothing in flight): DOWN without an alarm. Null while it runs, or when it went silent' })
  stoppedAt!: number | null;
  @ApiProperty({ type: [String], description: 'The handlers its last heartbeat offered' }) handlers!: string[];
  @ApiProperty({ type: 'object', additionalProperties: true, description: "JSON schemas of some handlers' params, by handler name ({} when none): a task's params are checked against it on save. A viewer sees the values they give secret-named params (`default`, `examples`, `const`, `enum`) as [redacted]" })
  handlerSchemas!: Record<string, JsonValue>;
  @ApiProperty({ enum: EXECUTOR_SECRET_STATUSES, description: 'Whether it uses the current executor secret (see the Connect panel to rotate)' })
  secret!: ExecutorSecretStatus;
  @ApiProperty({ enum: EXECUTOR_WIRES, description: 'How the engines speak to it: baton (the executor protocol) or xxl-job (an xxl-job-core executor registered with the tenant\'s XXL-JOB token; `secret` does not apply)' })
  wire!: ExecutorWire;
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
