import { Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { Audited } from '../audit';
import { ConsoleController } from '../common/access';
import type { Page } from '../common/cursor';
import { IdPipe } from '../common/id.pipe';
import { CurrentPrincipal, Principal, TenantId } from '../common/principal';
import { AlarmsService } from './alarms.service';
import { AlarmPage, AlarmQuery, AlarmView } from './dto/alarm.dto';

@ConsoleController('alarms', { tag: 'alarms' })
export class AlarmsController {
  constructor(private readonly alarms: AlarmsService) {}

  @Get()
  @ApiOperation({ summary: "The tenant's alarms, newest first, cursor-paginated" })
  @ApiOkResponse({ type: AlarmPage })
  list(@TenantId() tenantId: string, @Query() query: AlarmQuery): Promise<Page<AlarmView>> {
    return this.alarms.list(tenantId, query);
  }

  @Get(':id')
  @ApiOkResponse({ type: AlarmView })
  get(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number): Promise<AlarmView> {
    return this.alarms.get(tenantId, id);
  }

  @Post(':id/ack')
  @HttpCode(200)
  @Audited('alarm.ack')
  @ApiOperation({ summary: 'Acknowledge an alarm (idempotent)' })
  @ApiOkResponse({ type: AlarmView })
  ack(
    @TenantId() tenantId: string,
    @Param('id', new IdPipe()) id: number,
    @CurrentPrincipal() principal: Principal,
  ): Promise<AlarmView> {
    return this.alarms.ack(tenantId, id, principal.username);
  }
}
