import { Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { Audited } from '../audit';
import { ConsoleController } from '../common/access';
import type { Page } from '../common/cursor';
import { IdPipe } from '../common/id.pipe';
import { shownTo } from '../auth/secret-values';
import { CurrentPrincipal, Principal, TenantId } from '../common/principal';
import { AlarmGateway } from './alarm-gateway';
import { AlarmsService } from './alarms.service';
import { AlarmPage, AlarmQuery, AlarmView } from './dto/alarm.dto';

@ConsoleController('alarms', { tag: 'alarms' })
export class AlarmsController {
  constructor(
    private readonly alarms: AlarmsService,
    private readonly live: AlarmGateway,
  ) {}

  @Get()
  @ApiOperation({ summary: "The tenant's alarms, newest first, cursor-paginated (a viewer sees secret-named values of an alarm's data as [redacted])" })
  @ApiOkResponse({ type: AlarmPage })
  async list(@TenantId() tenantId: string, @Query() query: AlarmQuery, @CurrentPrincipal() principal: Principal): Promise<Page<AlarmView>> {
    return shownTo(principal, await this.alarms.list(tenantId, query));
  }

  @Get(':id')
  @ApiOperation({ summary: "An alarm (a viewer sees secret-named values of its data as [redacted])" })
  @ApiOkResponse({ type: AlarmView })
  async get(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number, @CurrentPrincipal() principal: Principal): Promise<AlarmView> {
    return shownTo(principal, await this.alarms.get(tenantId, id));
  }

  @Post(':id/ack')
  @HttpCode(200)
  @Audited('alarm.ack')
  @ApiOperation({ summary: 'Acknowledge an alarm (idempotent)' })
  @ApiOkResponse({ type: AlarmView })
  async ack(
    @TenantId() tenantId: string,
    @Param('id', new IdPipe()) id: number,
    @CurrentPrincipal() principal: Principal,
  ): Promise<AlarmView> {
    const view = await this.alarms.ack(tenantId, id, principal.username);
    // Every open console of the tenant takes the alarm's pop-up down, as for an ack from one of them.
    this.live.acknowledged(tenantId, view);
    return view;
  }
}
