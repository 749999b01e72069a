import { Module } from '@nestjs/common';
import { TaskGroupsController, TasksController } from './tasks.controller';
import { TaskVersionsController } from './task-versions.controller';
import { HandlerCheck } from './handler-check';
import { ParamsCheck } from './params-check';
import { TasksService } from './tasks.service';
import { TaskVersionsService } from './task-versions.service';

@Module({
  controllers: [TasksController, TaskGroupsController, TaskVersionsController],
  providers: [TasksService, TaskVersionsService, HandlerCheck, ParamsCheck],
  exports: [TasksService, ParamsCheck],
})
export class TasksModule {}
