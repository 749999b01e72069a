import { Module } from '@nestjs/common';
import { SubmissionsModule } from '../submissions/submissions.module';
import { EventsController } from './events.controller';
import { EventsService } from './events.service';

/** Events a tenant sends, and the runs they start through the submissions lane (EventsService). */
@Module({
  imports: [SubmissionsModule],
  controllers: [EventsController],
  providers: [EventsService],
  exports: [EventsService],
})
export class EventsModule {}
