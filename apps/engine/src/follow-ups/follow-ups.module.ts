import { Module } from '@nestjs/common';
import { AlarmsModule } from '../alarms/alarms.module';
import { FollowUps } from './follow-ups';

/** What follows a run's end: its children (dependencies, fan-in) and a fixed-delay task's next fire. */
@Module({ imports: [AlarmsModule], providers: [FollowUps], exports: [FollowUps] })
export class FollowUpsModule {}
