import { Module } from '@nestjs/common';
import { TasksModule } from '../tasks/tasks.module';
import { BatchSubmissionsController, TriggerController } from './submissions.controller';
import { SubmissionsService } from './submissions.service';

/** Runs submitted through the API: a task's trigger and batches of submissions (SubmissionsService). */
@Module({
  imports: [TasksModule],
  controllers: [TriggerController, BatchSubmissionsController],
  providers: [SubmissionsService],
  exports: [SubmissionsService],
})
export class SubmissionsModule {}
