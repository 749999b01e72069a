import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ConsoleController } from '../common/access';
import { IdPipe } from '../common/id.pipe';
import { TenantId } from '../common/principal';
import { StatsQuery, StatsView } from './dto/stats.dto';
import { StatsService } from './stats.service';

@ConsoleController('', { tag: 'stats' })
export class StatsController {
  constructor(private readonly stats: StatsService) {}

  @Get('stats')
  @ApiOperation({ summary: "The tenant's run statistics over a window ending now" })
  @ApiOkResponse({ type: StatsView })
  tenant(@TenantId() tenantId: string, @Query() query: StatsQuery): Promise<StatsView> {
    return this.stats.forTenant(tenantId, query.windowMs);
  }

  @Get('tasks/:id/stats')
  @ApiOperation({ summary: "A task's run statistics over a window ending now" })
  @ApiOkResponse({ type: StatsView })
  task(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number, @Query() query: StatsQuery): Promise<StatsView> {
    return this.stats.forTask(tenantId, id, query.windowMs);
  }
}
