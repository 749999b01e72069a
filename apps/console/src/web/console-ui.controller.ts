import { NotAudited } from '../audit';
import { Body, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ConsoleController, RouteAccess } from '../common/access';
import { TenantId } from '../common/principal';
import { ConsoleUiService } from './console-ui.service';
import { CronPreviewDto, CronPreviewView, StatsSeriesQuery, StatsSeriesView, TaskSummaryQuery, TaskSummaryView } from './dto';

@ConsoleController('cron', { tag: 'console-ui' })
export class CronPreviewController {
  constructor(private readonly ui: ConsoleUiService) {}

  @Post('preview')
  @HttpCode(200)
  @RouteAccess('authenticated')
  @NotAudited('computes fire times; stores nothing')
  @ApiOperation({ summary: "The next fire times of a cron expression in a time zone (the domain's trigger math); 400 names the bad field" })
  @ApiOkResponse({ type: CronPreviewView })
  preview(@Body() body: CronPreviewDto): CronPreviewView {
    return this.ui.cronPreview(body);
  }
}

@ConsoleController('ui', { tag: 'console-ui' })
export class ConsoleUiController {
  constructor(private readonly ui: ConsoleUiService) {}

  @Get('task-summaries')
  @ApiOperation({ summary: "Each task's newest begun run and newest finished run (the task list's last result)" })
  @ApiOkResponse({ type: [TaskSummaryView] })
  taskSummaries(@TenantId() tenantId: string, @Query() query: TaskSummaryQuery): Promise<TaskSummaryView[]> {
    return this.ui.taskSummaries(tenantId, query.ids);
  }

  @Get('stats-series')
  @ApiOperation({ summary: 'Runs per bucket by state, success rate, duration and lateness p50/p95 over time (tenant, or one task)' })
  @ApiOkResponse({ type: StatsSeriesView })
  statsSeries(@TenantId() tenantId: string, @Query() query: StatsSeriesQuery): Promise<StatsSeriesView> {
    return this.ui.statsSeries(tenantId, query);
  }
}
