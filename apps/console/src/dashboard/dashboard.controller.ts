import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ConsoleController } from '../common/access';
import { TenantId } from '../common/principal';
import { DashboardService } from './dashboard.service';
import { DashboardPage, DashboardsQuery, DashboardView, DEFAULT_DASHBOARDS } from './dto/dashboard.dto';

const WHAT = 'runs of the last hour by state, success rate, lateness p95, open alarms, executors up, and the backlog (due, held, in flight)';

@ConsoleController('dashboard', { tag: 'dashboard' })
export class DashboardController {
  constructor(private readonly dashboard: DashboardService) {}

  @Get()
  @ApiOperation({ summary: `The tenant's home dashboard: ${WHAT}` })
  @ApiOkResponse({ type: DashboardView })
  get(@TenantId() tenantId: string): Promise<DashboardView> {
    return this.dashboard.of(tenantId);
  }
}

@ConsoleController('operator/tenants', { tag: 'operator', access: 'operator' })
export class OperatorDashboardController {
  constructor(private readonly dashboard: DashboardService) {}

  @Get(':id/dashboard')
  @ApiOperation({ summary: `A tenant's dashboard, for the operator: ${WHAT} (404 for an unknown tenant)` })
  @ApiOkResponse({ type: DashboardView })
  get(@Param('id') id: string): Promise<DashboardView> {
    return this.dashboard.of(id);
  }
}

@ConsoleController('operator/dashboards', { tag: 'operator', access: 'operator' })
export class OperatorDashboardsController {
  constructor(private readonly dashboard: DashboardService) {}

  @Get()
  @ApiOperation({ summary: `Every tenant's dashboard, a page of tenants by id: ${WHAT}` })
  @ApiOkResponse({ type: DashboardPage })
  list(@Query() query: DashboardsQuery): Promise<DashboardPage> {
    return this.dashboard.ofTenants({ cursor: query.cursor, limit: query.limit ?? DEFAULT_DASHBOARDS });
  }
}
