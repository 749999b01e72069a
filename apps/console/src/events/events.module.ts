import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SubmissionsModule } from '../submissions/submissions.module';
import { EventReads } from './event-reads';
import { EventsController } from './events.controller';
import { EventsService } from './events.service';

/** Events a tenant sends, and the runs they start through the submissions lane (EventsService). */
@Module({
  imports: [SubmissionsModule],
  controllers: [EventsController],
  providers: [EventsService, { provide: EventReads, useFactory: (dataSource: DataSource) => new EventReads(dataSource), inject: [DataSource] }],
  exports: [EventsService],
})
export class EventsModule {}
