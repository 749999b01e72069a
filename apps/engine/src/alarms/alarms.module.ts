import { Module } from '@nestjs/common';
import { AlarmCounts } from './alarm-counts';
import { Alarms } from './alarms';
import { ClockSkewAlarm } from './clock-skew-alarm';
import { OutboxRelay } from './outbox-relay';
import { OutboxSignal } from './outbox-signal';

/**
 * Alarm rows (the outbox), written in the transaction of the change they report, and the relay
 * that publishes them on the alarm bus (a node worker: EngineModule hands it to the lifecycle).
 */
@Module({ providers: [Alarms, AlarmCounts, OutboxSignal, OutboxRelay, ClockSkewAlarm], exports: [Alarms, OutboxSignal, OutboxRelay, ClockSkewAlarm] })
export class AlarmsModule {}
