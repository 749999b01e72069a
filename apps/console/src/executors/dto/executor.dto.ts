import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { EXECUTOR_STATES, type ExecutorState } from '@baton/domain';

export class ExecutorView {
  @ApiProperty() id!: number;
  @ApiProperty() app!: string;
  @ApiProperty() url!: string;
  @ApiProperty() capacity!: number;
  @ApiProperty() inFlight!: number;
  @ApiProperty({ enum: EXECUTOR_STATES }) state!: ExecutorState;
  @ApiProperty() registeredAt!: number;
  @ApiProperty() heartbeatAt!: number;
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
