import { Module } from '@nestjs/common';
import { AlarmsModule } from '../alarms/alarms.module';
import { FanOutNudges } from './fan-out-nudges';
import { FanOutSettler } from './fan-out-settler';
import { FollowUps } from './follow-ups';
import { RunEvents } from './run-events';
import { RunOutcomes } from './run-outcomes';

/** How attempts end (retry policy, alarms) and what follows a run's end (children, fixed delay, a fan-out run's end). */
@Module({ imports: [AlarmsModule], providers: [FollowUps, RunOutcomes, RunEvents, FanOutNudges, FanOutSettler], exports: [FollowUps, RunOutcomes, RunEvents, FanOutSettler] })
export class FollowUpsModule {}
