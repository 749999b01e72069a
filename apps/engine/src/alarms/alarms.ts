import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { AlarmType, JsonValue, Severity } from '@baton/domain';
import { findTaskAlarmTypes, insertAlarm } from '@baton/persistence';
import { severityOf } from './alarm-policy';
import { truncateChars, truncateUtf8, MAX_TEXT_BYTES } from './text';

export interface RaiseAlarm {
  tenantId: string;
  type: AlarmType;
  /** Default: severityOf(type). Required for BUSINESS. */
  severity?: Severity;
  taskId?: number | null;
  runId?: number | null;
  executorId?: number | null;
  message: string;
  data?: JsonValue;
  now: number;
  /**
   * The task's alarm types (tasks.alarm_types), when the caller has them: an alarm of a type the
   * task does not raise is not written. undefined: looked up (for an alarm about a task);
   * null: every type.
   */
  alarmTypes?: readonly AlarmType[] | null;
}

const MESSAGE_CHARS = 1000; // alarms.message is VARCHAR(1000)

/**
 * The one place the engine writes alarm rows (the outbox; published_at NULL until the relay
 * publishes them — a later issue). Always given the EntityManager of the transaction that makes
 * the state change the alarm reports, so the alarm exists exactly when the change does; the
 * callers' guarded updates make sure each event is handled — and alarmed — once in a cluster.
 */
@Injectable()
export class Alarms {
  /** Writes the alarm unless the task does not raise its type. True when written. */
  async raise(manager: EntityManager, alarm: RaiseAlarm): Promise<boolean> {
    const taskId = alarm.taskId ?? null;
    if (taskId !== null) {
      const types = alarm.alarmTypes === undefined ? await findTaskAlarmTypes(manager, taskId) : alarm.alarmTypes;
      if (types && !types.includes(alarm.type)) return false;
    }
    const severity = alarm.severity ?? (alarm.type === 'BUSINESS' ? 'INFO' : severityOf(alarm.type));
    await insertAlarm(manager, {
      tenantId: alarm.tenantId,
      type: alarm.type,
      severity,
      taskId,
      runId: alarm.runId ?? null,
      executorId: alarm.executorId ?? null,
      message: truncateChars(alarm.message, MESSAGE_CHARS),
      dataJson: alarm.data === undefined ? null : truncateJson(alarm.data),
      raisedAt: alarm.now,
    });
    return true;
  }
}

function truncateJson(data: JsonValue): string {
  const text = JSON.stringify(data);
  if (Buffer.byteLength(text, 'utf8') <= MAX_TEXT_BYTES) return text;
  return JSON.stringify({ truncated: true, preview: truncateUtf8(text, 4000) });
}
