import type { DataSource } from 'typeorm';
import { systemClock, type Clock } from '@baton/domain';
import { AlarmCounts } from '../alarm-counts';
import { Alarms } from '../alarms';
import { OutboxSignal } from '../outbox-signal';

/** Alarms as the engine module wires them, outside Nest: the outbox signal (a relay's, if given) and the repeat counts (on `clock`; a relay's, if given). */
export function newAlarms(dataSource: DataSource, signal = new OutboxSignal(), clock: Clock = systemClock, counts = new AlarmCounts(dataSource, signal, clock)): Alarms {
  return new Alarms(signal, counts);
}
