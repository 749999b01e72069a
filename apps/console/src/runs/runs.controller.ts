import { Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { Audited } from '../audit';
import { ConsoleController } from '../common/access';
import type { Page } from '../common/cursor';
import { IdPipe } from '../common/id.pipe';
import { TenantId } from '../common/principal';
import { RunDetailView, RunPage, RunQuery, RunView } from './dto/run.dto';
import { RunsService } from './runs.service';

@ConsoleController('runs', { tag: 'runs' })
export class RunsController {
  constructor(private readonly runs: RunsService) {}

  @Get()
  @ApiOperation({ summary: 'Runs, newest scheduled first; cursor pagination on (scheduledAt desc, id desc)' })
  @ApiOkResponse({ type: RunPage })
  list(@TenantId() tenantId: string, @Query() query: RunQuery): Promise<Page<RunView>> {
    return this.runs.list(tenantId, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'A run with its params snapshot, result and log lines' })
  @ApiOkResponse({ type: RunDetailView })
  get(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number): Promise<RunDetailView> {
    return this.runs.get(tenantId, id);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @Audited('run.cancel')
  @ApiOperation({ summary: 'Cancel an active run (409 when it is already over)' })
  @ApiOkResponse({ type: RunDetailView })
  cancel(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number): Promise<RunDetailView> {
    return this.runs.cancel(tenantId, id);
  }
}
