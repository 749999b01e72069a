import { Body, Delete, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { Audited } from '../audit';
import { ConsoleController, RouteAccess } from '../common/access';
import { IdPipe } from '../common/id.pipe';
import { TenantId } from '../common/principal';
import { RetentionView, TaskRetentionDto, TenantRetentionDto } from './dto/retention.dto';
import { RetentionService } from './retention.service';

@ConsoleController('retention', { tag: 'retention' })
export class RetentionController {
  constructor(private readonly retention: RetentionService) {}

  @Get()
  @ApiOperation({ summary: "How long the tenant's ended runs, logs and alarms are kept: ceiling, policy, task overrides" })
  @ApiOkResponse({ type: RetentionView })
  get(@TenantId() tenantId: string): Promise<RetentionView> {
    return this.retention.get(tenantId);
  }

  @Put()
  @RouteAccess('tenant-admin')
  @Audited('retention.set')
  @ApiOperation({ summary: "Set the tenant's retention (TENANT_ADMIN); each at most the cluster's ceiling, null: the ceiling" })
  @ApiOkResponse({ type: RetentionView })
  setTenant(@TenantId() tenantId: string, @Body() body: TenantRetentionDto): Promise<RetentionView> {
    return this.retention.setTenant(tenantId, body);
  }

  @Put('tasks/:id')
  @RouteAccess('tenant-admin')
  @Audited('retention.task-set')
  @ApiOperation({ summary: "Override one task's run retention and newest runs kept (TENANT_ADMIN)" })
  @ApiOkResponse({ type: RetentionView })
  setTask(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number, @Body() body: TaskRetentionDto): Promise<RetentionView> {
    return this.retention.setTask(tenantId, id, body);
  }

  @Delete('tasks/:id')
  @RouteAccess('tenant-admin')
  @HttpCode(204)
  @Audited('retention.task-clear')
  @ApiOperation({ summary: "Remove a task's override: it takes its tenant's retention again (TENANT_ADMIN)" })
  @ApiNoContentResponse()
  clearTask(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number): Promise<void> {
    return this.retention.clearTask(tenantId, id);
  }
}
