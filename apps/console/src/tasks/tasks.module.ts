import { Module } from '@nestjs/common';
import { RunChangesModule } from '../run-changes/run-changes.module';
import { BackfillsService } from './backfills.service';
import { HandlerCheck } from './handler-check';
import { ParamsCheck } from './params-check';
import { TaskCreationService } from './task-creation.service';
import { TaskEditsService } from './task-edits.service';
import { TaskPausesService } from './task-pauses.service';
import { TaskReadsService } from './task-reads.service';
import { TaskRemovalService } from './task-removal.service';
import { TaskVersionsController } from './task-versions.controller';
import { TaskVersionsService } from './task-versions.service';
import { TaskGroupsController, TasksController } from './tasks.controller';

@Module({
  imports: [RunChangesModule],
  controllers: [TasksController, TaskGroupsController, TaskVersionsController],
  providers: [
    TaskReadsService,
    TaskCreationService,
    TaskEditsService,
    TaskRemovalService,
    TaskPausesService,
    BackfillsService,
    TaskVersionsService,
    HandlerCheck,
    ParamsCheck,
  ],
  exports: [TaskEditsService, TaskRemovalService, ParamsCheck],
})
export class TasksModule {}
