import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ConsoleController } from '../common/access';
import { IdPipe } from '../common/id.pipe';
import { TenantId } from '../common/principal';
import { ExecutorQuery, ExecutorView } from './dto/executor.dto';
import { ExecutorsService } from './executors.service';

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
