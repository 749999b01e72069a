import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { AlarmType, JsonValue, Severity } from '@baton/domain';
import { alarmUidExists, findAlarmToCountInto, findTaskAlarmSettings, insertAlarm, refreshAlarmText } from '@baton/persistence';
import { ALARM_ID_PATTERN } from '@baton/messaging';
import { AlarmCounts } from './alarm-counts';
import { collapsible, severityOf } from './alarm-policy';
import { OutboxSignal } from './outbox-signal';
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
  /**
   * The silence window: a repeat of an unacknowledged alarm of this type and severity raised
   * within it is counted into that alarm (findAlarmToCountInto). An alarm about no task: the
   * window its caller gives; default: never collapsed. An alarm about a task: the task's
   * (tasks.alarm_silence_ms), given by a caller that has it with `alarmTypes` (a claimed run, a
   * callback's attempt row), so the task is not read again for each alarm; undefined: read.
   */
  silenceMs?: number;
  /**
   * A repeat counted into the open alarm gives it this message and data (refreshAlarmText): what
   * stands now, not what the first said. CLOCK_SKEW: a later episode may be the other way, or stop
   * the engine's claims. Default: the first's stay, the count says how many came.
   */
  refresh?: boolean;
  /**
   * The alarm's stable id (alarms.uid, the message `id`). Default: a new UUID. A business alarm
   * brings the executor SDK's id, so a callback that carries it again writes nothing.
   */
  uid?: string;
}

export type RaiseOutcome = 'WRITTEN' | 'COLLAPSED' | 'FILTERED' | 'DUPLICATE';

const MESSAGE_CHARS = 1000; // alarms.message is VARCHAR(1000)

/**
 * The one place the engine writes alarm rows (the outbox: published_at NULL until the outbox
 * relay publishes them to `<prefix><tenant>`). Always given the EntityManager of the transaction
 * that makes the state change the alarm reports, so the alarm exists exactly when the change
 * does; the callers' guarded updates make sure each event is handled — and alarmed — once in a
 * cluster.
 *
 * Per-task settings (tasks.alarm_types, tasks.alarm_silence_ms): an alarm of a type the task does
 * not raise is not written; a repeat of an unacknowledged alarm of the task (same type and
 * severity, and message for BUSINESS) within the silence window adds to that alarm's count
 * instead of making a new one (findAlarmToCountInto; the count is written just after the commit:
 * AlarmCounts). An alarm about no task collapses only in the
 * window its caller gives (`silenceMs`: BACKLOG_LATE). Once committed, the relay is woken (OutboxSignal).
 */
@Injectable()
export class Alarms {
  /**
   * Per transaction (its manager, one per attempt): the alarm each collapse key was counted into
   * or written as, so the repeats that follow in the same transaction count into it without
   * reading. A watchdog tick raises START_LATE for up to 200 late runs of one task at one `now`:
   * behind a backlog that was one SELECT a late run (4,000–6,600 in one event-ingest drain).
   */
  private readonly collapsedInto = new WeakMap<EntityManager, Map<string, number>>();

  constructor(
    private readonly signal: OutboxSignal,
    private readonly counts: AlarmCounts,
  ) {}

  /** Resolves once the repeats counted so far are written (AlarmCounts: after their transactions commit). */
  countsWritten(): Promise<void> {
    return this.counts.settled();
  }

  /** Writes the alarm unless the task does not raise its type. True when written or counted into an earlier one. */
  async raise(manager: EntityManager, alarm: RaiseAlarm): Promise<boolean> {
    const outcome = await this.raiseAlarm(manager, alarm);
    return outcome === 'WRITTEN' || outcome === 'COLLAPSED';
  }

  /** As raise(), saying what happened. */
  async raiseAlarm(manager: EntityManager, alarm: RaiseAlarm): Promise<RaiseOutcome> {
    const taskId = alarm.taskId ?? null;
    const severity = alarm.severity ?? (alarm.type === 'BUSINESS' ? 'INFO' : severityOf(alarm.type));
    const message = truncateChars(alarm.message, MESSAGE_CHARS);
    const givenUid = alarm.uid !== undefined && ALARM_ID_PATTERN.test(alarm.uid) ? alarm.uid : null;
    let collapseKey: string | null = null;
    // The executor's alarm again (a callback whose answer was lost): nothing new, not even a count.
    if (givenUid !== null && (await alarmUidExists(manager, givenUid))) return 'DUPLICATE';
    let silenceMs = alarm.silenceMs ?? 0;
    if (taskId !== null) {
      // Read once per alarm unless the caller carries both (a storm of failing runs: one read per retry before).
      const settings = alarm.alarmTypes !== undefined && alarm.silenceMs !== undefined ? { types: alarm.alarmTypes, silenceMs: alarm.silenceMs } : await findTaskAlarmSettings(manager, taskId);
      const types = alarm.alarmTypes === undefined ? settings.types : alarm.alarmTypes;
      if (types && !types.includes(alarm.type)) return 'FILTERED';
      silenceMs = settings.silenceMs;
    }
    if (silenceMs > 0 && collapsible(alarm.type)) {
      const collapse = { tenantId: alarm.tenantId, taskId, type: alarm.type, severity, message: alarm.type === 'BUSINESS' ? message : null, since: alarm.now - silenceMs };
      collapseKey = JSON.stringify(collapse);
      const into = this.collapsedInto.get(manager)?.get(collapseKey) ?? (await findAlarmToCountInto(manager, collapse));
      if (into !== null) {
        this.remember(manager, collapseKey, into);
        if (alarm.refresh) await refreshAlarmText(manager, { id: into, message, dataJson: alarm.data === undefined ? null : truncateJson(alarm.data) });
        this.counts.add(manager, into); // and published again with its new count (and text)
        return 'COLLAPSED';
      }
    }
    const uid = givenUid ?? randomUUID();
    const written = await insertAlarm(manager, {
      uid,
      tenantId: alarm.tenantId,
      type: alarm.type,
      severity,
      taskId,
      runId: alarm.runId ?? null,
      executorId: alarm.executorId ?? null,
      message,
      dataJson: alarm.data === undefined ? null : truncateJson(alarm.data),
      raisedAt: alarm.now,
    });
    if (written === null) return 'DUPLICATE';
    if (collapseKey !== null) this.remember(manager, collapseKey, written);
    this.signal.noteAlarm(manager);
    return 'WRITTEN';
  }

  private remember(manager: EntityManager, collapseKey: string, alarmId: number): void {
    let known = this.collapsedInto.get(manager);
    if (!known) this.collapsedInto.set(manager, (known = new Map()));
    known.set(collapseKey, alarmId);
  }
}

function truncateJson(data: JsonValue): string {
  const text = JSON.stringify(data);
  if (Buffer.byteLength(text, 'utf8') <= MAX_TEXT_BYTES) return text;
  return JSON.stringify({ truncated: true, preview: truncateUtf8(text, 4000) });
}
