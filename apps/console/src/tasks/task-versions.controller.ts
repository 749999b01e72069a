import { Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { Audited } from '../audit';
import { ConsoleController } from '../common/access';
import { IdPipe } from '../common/id.pipe';
import { TenantId } from '../common/principal';
import { SavedTaskView } from './dto/task.dto';
import { TaskVersionView } from './dto/task-version.dto';
import { HandlerCheck } from './handler-check';
import { TaskVersionsService } from './task-versions.service';
import { TaskEditsService } from './task-edits.service';

/** A task's versions and their restore (issue 23 part 3). */
@ConsoleController('tasks', { tag: 'tasks' })
export class TaskVersionsController {
  constructor(
    private readonly versions: TaskVersionsService,
    private readonly edits: TaskEditsService,
    private readonly handlers: HandlerCheck,
  ) {}

  @Get(':id/versions')
  @ApiOperation({ summary: "The task's versions, newest first (up to 50): who saved each and when, the fields it changed, and the next fire times it would give" })
  @ApiOkResponse({ type: [TaskVersionView] })
  list(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number): Promise<TaskVersionView[]> {
    return this.versions.list(tenantId, id);
  }

  @Post(':id/versions/:version/restore')
  @HttpCode(200)
  @Audited('task.restore')
  @ApiOperation({ summary: 'Give the task the definition a version saved (checked as a PUT of it is); this makes a new version' })
  @ApiOkResponse({ type: SavedTaskView })
  async restore(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number, @Param('version', new IdPipe('version')) version: number): Promise<SavedTaskView> {
    const saved = await this.edits.restore(tenantId, id, await this.versions.definition(tenantId, id, version));
    const [warnings] = await this.handlers.warnings(tenantId, [saved]);
    return { ...saved, warnings };
  }
}
