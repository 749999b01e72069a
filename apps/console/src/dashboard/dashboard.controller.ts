import { Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ConsoleController } from '../common/access';
import { TenantId } from '../common/principal';
import { DashboardService } from './dashboard.service';
import { DashboardView } from './dto/dashboard.dto';

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
