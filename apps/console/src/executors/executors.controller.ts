import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { EXECUTOR_STATES, type ExecutorState } from '@baton/domain';
import { ConsoleController } from '../common/access';
import { IdPipe } from '../common/id.pipe';
import { TenantId } from '../common/principal';
import { ExecutorsService } from './executors.service';

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

@ConsoleController('executors', { tag: 'executors' })
export class ExecutorsController {
  constructor(private readonly executors: ExecutorsService) {}

  @Get()
  @ApiOperation({ summary: "The tenant's executors (registered by their heartbeats) and their load" })
  @ApiOkResponse({ type: [ExecutorView] })
  list(@TenantId() tenantId: string, @Query() query: ExecutorQuery): Promise<ExecutorView[]> {
    return this.executors.list(tenantId, query);
  }

  @Get(':id')
  @ApiOkResponse({ type: ExecutorView })
  get(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number): Promise<ExecutorView> {
    return this.executors.get(tenantId, id);
  }
}
