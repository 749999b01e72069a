import { Module } from '@nestjs/common';
import { RunsModule } from '../runs/runs.module';
import { TasksModule } from '../tasks/tasks.module';
import { BatchSubmissionsController, TriggerController } from './submissions.controller';
import { SubmissionsService } from './submissions.service';

/** Runs submitted through the API: a task's trigger and batches of submissions (SubmissionsService). */
@Module({
  imports: [TasksModule, RunsModule],
  controllers: [TriggerController, BatchSubmissionsController],
  providers: [SubmissionsService],
  exports: [SubmissionsService],
})
export class SubmissionsModule {}
