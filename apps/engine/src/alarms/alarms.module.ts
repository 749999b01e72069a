import { Module } from '@nestjs/common';
import { Alarms } from './alarms';

/** Alarm rows (the outbox), written in the transaction of the change they report. */
@Module({ providers: [Alarms], exports: [Alarms] })
export class AlarmsModule {}
