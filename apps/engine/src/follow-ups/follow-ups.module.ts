import { Module } from '@nestjs/common';
import { AlarmsModule } from '../alarms/alarms.module';
import { FollowUps } from './follow-ups';
import { RunEvents } from './run-events';
import { RunOutcomes } from './run-outcomes';

/** How attempts end (retry policy, alarms) and what follows a run's end (children, fixed delay). */
@Module({ imports: [AlarmsModule], providers: [FollowUps, RunOutcomes, RunEvents], exports: [FollowUps, RunOutcomes, RunEvents] })
export class FollowUpsModule {}
