import { Body, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import { HEAVY_WORK_BUSY } from '../common/tenant-heavy-work';
import { Audited } from '../audit';
import { shownTo } from '../auth/secret-values';
import { ConsoleController } from '../common/access';
import type { Page } from '../common/cursor';
import { IdPipe } from '../common/id.pipe';
import { NamePipe } from '../common/name.pipe';
import { CurrentPrincipal, TenantId, type Principal } from '../common/principal';
import {
  BackfillCancelView,
  BackfillDto,
  BackfillView,
  CopyTaskDto,
  DeleteTaskQuery,
  GroupPauseView,
  PatchTaskDto,
  SavedTaskView,
  TaskBatchDto,
  TaskBatchView,
  TaskBodyDto,
  TaskPage,
  TaskQuery,
  TaskView,
  UpdateTaskDto,
} from './dto/task.dto';
import { BackfillsService } from './backfills.service';
import { HandlerCheck } from './handler-check';
import { TaskCreationService } from './task-creation.service';
import { TaskEditsService } from './task-edits.service';
import { TaskPausesService } from './task-pauses.service';
import { TaskReadsService } from './task-reads.service';
import { TaskRemovalService } from './task-removal.service';

@ConsoleController('tasks', { tag: 'tasks' })
export class TasksController {
  constructor(
    private readonly reads: TaskReadsService,
    private readonly creation: TaskCreationService,
    private readonly edits: TaskEditsService,
    private readonly removal: TaskRemovalService,
    private readonly backfills: BackfillsService,
    private readonly pauses: TaskPausesService,
    private readonly handlers: HandlerCheck,
  ) {}

  /** A saved task with what its save should know: its handler is not offered by a live executor. */
  private async checked(tenantId: string, saved: TaskView): Promise<SavedTaskView> {
    const [warnings] = await this.handlers.warnings(tenantId, [saved]);
    return { ...saved, warnings };
  }

  @Get()
  @ApiOperation({ summary: 'Tasks of the tenant by name; search, filter by group / paused; cursor pagination' })
  @ApiOkResponse({ type: TaskPage })
  async list(@TenantId() tenantId: string, @Query() query: TaskQuery, @CurrentPrincipal() principal: Principal): Promise<Page<TaskView>> {
    const page = await this.reads.list(tenantId, query);
    return { ...page, items: page.items.map((task) => shownTo(principal, task)) };
  }

  @Post()
  @Audited('task.create')
  @ApiOperation({ summary: 'Create a task; nextFireAt is computed from the trigger' })
  @ApiCreatedResponse({ type: SavedTaskView })
  @ApiConflictResponse({ description: 'A task of that name exists (errors name `name`)' })
  async create(@TenantId() tenantId: string, @Body() body: TaskBodyDto): Promise<SavedTaskView> {
    return this.checked(tenantId, await this.creation.create(tenantId, body));
  }

  @Post('batch')
  @Audited('task.create-batch')
  @ApiOperation({
    summary: 'Create up to 1,000 tasks in one request, all or none',
    description:
      'Each task is checked as POST /tasks checks it; every error names its item (`tasks[3].trigger.expression`). A name taken by an existing task, or twice in the batch, is a 409 naming the item. The body is at most 1 MB (413 beyond).',
  })
  @ApiCreatedResponse({ type: TaskBatchView })
  @ApiConflictResponse({ description: 'A name is taken, or given twice (errors name `tasks[i].name`); nothing was created' })
  async createMany(@TenantId() tenantId: string, @Body() body: TaskBatchDto): Promise<TaskBatchView> {
    const items = await this.creation.createMany(tenantId, body.tasks);
    const warnings = await this.handlers.warnings(tenantId, items);
    return { items: items.map((item, i) => ({ ...item, warnings: warnings[i] })) };
  }

  @Get(':id')
  @ApiOkResponse({ type: TaskView })
  async get(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number, @CurrentPrincipal() principal: Principal): Promise<TaskView> {
    return shownTo(principal, await this.reads.get(tenantId, id));
  }

  @Put(':id')
  @Audited('task.replace')
  @ApiOperation({ summary: 'Replace a task (omitted fields take their defaults)' })
  @ApiOkResponse({ type: SavedTaskView })
  async replace(
    @TenantId() tenantId: string,
    @Param('id', new IdPipe()) id: number,
    @Body() body: UpdateTaskDto,
  ): Promise<SavedTaskView> {
    return this.checked(tenantId, await this.edits.replace(tenantId, id, body));
  }

  @Patch(':id')
  @Audited('task.update')
  @ApiOperation({ summary: 'Change some fields of a task (retry and alarms may be given in part)' })
  @ApiOkResponse({ type: SavedTaskView })
  async patch(
    @TenantId() tenantId: string,
    @Param('id', new IdPipe()) id: number,
    @Body() body: PatchTaskDto,
  ): Promise<SavedTaskView> {
    return this.checked(tenantId, await this.edits.patch(tenantId, id, body));
  }

  @Delete(':id')
  @HttpCode(204)
  @Audited('task.delete')
  @ApiOperation({
    summary:
      'Delete a task. With dependency edges: 409 TASK_HAS_DEPENDENCIES unless ?cascade=true (deletes the edges). Active runs are cancelled; history stays.',
  })
  @ApiNoContentResponse()
  async delete(
    @TenantId() tenantId: string,
    @Param('id', new IdPipe()) id: number,
    @Query() query: DeleteTaskQuery,
  ): Promise<void> {
    await this.removal.delete(tenantId, id, query.cascade === true);
  }

  @Post(':id/copy')
  @Audited('task.copy')
  @ApiOperation({ summary: "A new task with this task's definition under a new name (checked and saved as POST /tasks); its fires count from zero" })
  @ApiCreatedResponse({ type: SavedTaskView })
  @ApiConflictResponse({ description: 'A task of that name exists (errors name `name`)' })
  async copy(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number, @Body() body: CopyTaskDto): Promise<SavedTaskView> {
    return this.checked(tenantId, await this.creation.copy(tenantId, id, body.name, body.paused));
  }

  @Post(':id/backfill')
  @ApiTooManyRequestsResponse({ description: HEAVY_WORK_BUSY })
  @Audited('task.backfill')
  @ApiOperation({
    summary: 'Run the past fires of a CRON or FIXED_RATE task in [from, to): one BACKFILL run per fire, at most 10,000',
    description:
      'Each run has the fire key a scheduled run of that fire has, so a fire that already ran is not run again (alreadyRun). The runs are made due one after another at ratePerSec (default 10) and raise no START_LATE. They are written 500 a transaction, so other requests are served meanwhile: a backfill interrupted half-way (the console stopped) keeps the runs written, and the same request again writes the rest (counted as alreadyRun). DELETE stops the backfill, also while its runs are being written: the runs written so far are cancelled and the rest are not written (notWritten in this answer).',
  })
  @ApiCreatedResponse({ type: BackfillView })
  backfill(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number, @Body() body: BackfillDto): Promise<BackfillView> {
    return this.backfills.backfill(tenantId, id, body);
  }

  @Delete(':id/backfill')
  @HttpCode(200)
  @Audited('task.backfill-cancel')
  @ApiOperation({ summary: "Stop the task's backfill: its runs not sent yet end CANCELLED (running ones finish); one still being written writes no more" })
  @ApiOkResponse({ type: BackfillCancelView })
  cancelBackfill(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number): Promise<BackfillCancelView> {
    return this.backfills.cancelBackfill(tenantId, id);
  }

  @Post(':id/pause')
  @HttpCode(200)
  @Audited('task.pause')
  @ApiOperation({ summary: 'Pause a task: no more scheduled fires; those prepared ahead of their instant (planned, claimed, sent ahead) end CANCELLED and are aborted at their executor' })
  @ApiOkResponse({ type: TaskView })
  pause(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number): Promise<TaskView> {
    return this.pauses.setPaused(tenantId, id, true);
  }

  @Post(':id/resume')
  @HttpCode(200)
  @Audited('task.resume')
  @ApiOperation({ summary: 'Resume; a fire time missed while paused is handled by the misfire policy' })
  @ApiOkResponse({ type: TaskView })
  resume(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number): Promise<TaskView> {
    return this.pauses.setPaused(tenantId, id, false);
  }
}

@ConsoleController('task-groups', { tag: 'tasks' })
export class TaskGroupsController {
  constructor(private readonly pauses: TaskPausesService) {}

  @Post(':group/pause')
  @HttpCode(200)
  @Audited('task-group.pause')
  @ApiOperation({ summary: 'Pause every task of a task group' })
  @ApiOkResponse({ type: GroupPauseView })
  pause(@TenantId() tenantId: string, @Param('group', new NamePipe('group')) group: string): Promise<GroupPauseView> {
    return this.pauses.setGroupPaused(tenantId, group, true);
  }

  @Post(':group/resume')
  @HttpCode(200)
  @Audited('task-group.resume')
  @ApiOperation({ summary: 'Resume every task of a task group' })
  @ApiOkResponse({ type: GroupPauseView })
  resume(@TenantId() tenantId: string, @Param('group', new NamePipe('group')) group: string): Promise<GroupPauseView> {
    return this.pauses.setGroupPaused(tenantId, group, false);
  }
}
