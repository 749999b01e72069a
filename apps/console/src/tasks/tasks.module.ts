import { Module } from '@nestjs/common';
import { RunsModule } from '../runs/runs.module';
import { TaskGroupsController, TasksController } from './tasks.controller';
import { HandlerCheck } from './handler-check';
import { ParamsCheck } from './params-check';
import { TasksService } from './tasks.service';

@Module({
  imports: [RunsModule],
  controllers: [TasksController, TaskGroupsController],
  providers: [TasksService, HandlerCheck, ParamsCheck],
  exports: [TasksService],
})
export class TasksModule {}
