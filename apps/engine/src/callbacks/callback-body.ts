import { ALARM_ID_PATTERN } from '@baton/messaging';
import { MAX_ALARMS_PER_CALLBACK, type BusinessAlarm, type LogLine, type RunCallback } from '@baton/protocol';
import { MAX_TEXT_BYTES, truncateChars, truncateUtf8 } from '../alarms/text';
import { badRequest, isInstant, isInt } from '../security/bad-request';

/** Log lines stored from one callback; more are dropped (with a marker line). */
export const MAX_LOG_LINES_PER_CALLBACK = 1_000;
/** Log lines stored per run (all attempts); see appendRunLogs. */
export const MAX_LOG_LINES_PER_RUN = 5_000;
/** Characters kept of one log line. */
export const MAX_LOG_LINE_CHARS = 8_000;

/** A W3C traceparent of version 00 (what Baton's executors send). */
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

const OUTCOMES = new Set(['SUCCEEDED', 'FAILED', 'ABORTED']);
const LEVELS: ReadonlySet<string> = new Set<LogLine['level']>(['debug', 'info', 'warn', 'error']);
const SEVERITIES = new Set(['INFO', 'WARNING', 'CRITICAL']);

/**
 * Checks a RunCallback and bounds what it may store. 400 naming the field for what cannot be
 * stored at all (the SDK then drops the callback: sending it again cannot help); oversized text
 * is truncated, not refused — refusing a final callback would leave the run to time out.
 */
export function readCallback(body: Record<string, unknown>, now: number): RunCallback {
  const { runId, attempt, tenantId, outcome, error, startedAt, finishedAt, progress, logs, alarms, abortReason, executorId, retryable } = body;
  if (!isInt(runId, 1)) throw badRequest('runId', 'a positive integer');
  if (!isInt(attempt, 1, 1_000_000)) throw badRequest('attempt', 'a positive integer');
  if (typeof tenantId !== 'string' || tenantId.length === 0) throw badRequest('tenantId', 'required');
  if (outcome !== undefined && (typeof outcome !== 'string' || !OUTCOMES.has(outcome))) throw badRequest('outcome', 'SUCCEEDED, FAILED or ABORTED');
  if (error !== undefined && error !== null && typeof error !== 'string') throw badRequest('error', 'a string');
  if (startedAt !== undefined && startedAt !== null && !isInstant(startedAt)) throw badRequest('startedAt', 'epoch milliseconds');
  if (finishedAt !== undefined && finishedAt !== null && !isInstant(finishedAt)) throw badRequest('finishedAt', 'epoch milliseconds');
  if (progress !== undefined && progress !== null && (typeof progress !== 'number' || !Number.isFinite(progress))) throw badRequest('progress', 'a number from 0 to 100');
  if (abortReason !== undefined && abortReason !== null && typeof abortReason !== 'string') throw badRequest('abortReason', 'a string');
  if (executorId !== undefined && executorId !== null && !isInt(executorId, 0)) throw badRequest('executorId', 'an integer');
  if (retryable !== undefined && retryable !== null && typeof retryable !== 'boolean') throw badRequest('retryable', 'a boolean');
  return {
    runId,
    attempt,
    tenantId,
    outcome: outcome as RunCallback['outcome'],
    result: body.result as RunCallback['result'],
    error: typeof error === 'string' ? truncateUtf8(error, MAX_TEXT_BYTES) : undefined,
    startedAt: typeof startedAt === 'number' ? startedAt : undefined,
    finishedAt: typeof finishedAt === 'number' ? finishedAt : undefined,
    progress: typeof progress === 'number' ? Math.min(100, Math.max(0, Math.round(progress))) : undefined,
    logs: readLogs(logs, now),
    alarms: readAlarms(alarms, now),
    abortReason: typeof abortReason === 'string' ? (abortReason as RunCallback['abortReason']) : undefined,
    retryable: typeof retryable === 'boolean' ? retryable : undefined,
    // Flow-control hints, never a reason to refuse the outcome (a 400 would drop it for good): kept only when well-formed.
    ...(isInt(body.credit, 0) && isInt(body.creditSeq, 0) ? { credit: body.credit, creditSeq: body.creditSeq } : {}),
    // A trace hint too: a malformed one starts no span of this trace, and refuses nothing.
    ...(typeof body.traceparent === 'string' && TRACEPARENT.test(body.traceparent) ? { traceparent: body.traceparent } : {}),
  };
}

function readLogs(value: unknown, now: number): LogLine[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw badRequest('logs', 'an array of log lines');
  const lines: LogLine[] = [];
  for (const [i, raw] of value.entries()) {
    if (lines.length === MAX_LOG_LINES_PER_CALLBACK) {
      lines.push({ at: now, level: 'warn', message: `[baton] ${value.length - i} log line(s) dropped: over ${MAX_LOG_LINES_PER_CALLBACK} in one callback` });
      break;
    }
    const line = raw as Partial<LogLine> | null;
    if (!line || typeof line !== 'object' || typeof line.message !== 'string') throw badRequest(`logs[${i}].message`, 'a string');
    const { level, message } = levelOf(line.level, line.message);
    lines.push({ at: isInstant(line.at) ? line.at : now, level, message: truncateUtf8(truncateChars(message, MAX_LOG_LINE_CHARS), MAX_TEXT_BYTES) });
  }
  return lines;
}

/**
 * A line's level, in any case ('WARN' is warn: executors written by hand send it so). Any other
 * level is stored as info, not refused (a 400 would drop the outcome with it), and the line
 * starts with what was sent, so a reader sees it was not info.
 */
function levelOf(sent: unknown, message: string): { level: LogLine['level']; message: string } {
  if (sent === undefined || sent === null) return { level: 'info', message };
  const level = typeof sent === 'string' ? sent.toLowerCase() : '';
  if (LEVELS.has(level)) return { level: level as LogLine['level'], message };
  return { level: 'info', message: `[level ${truncateChars(JSON.stringify(sent), 40)}, not debug|info|warn|error] ${message}` };
}

function readAlarms(value: unknown, now: number): BusinessAlarm[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw badRequest('alarms', 'an array of alarms');
  return value.slice(0, MAX_ALARMS_PER_CALLBACK).map((raw, i) => {
    const alarm = raw as Partial<BusinessAlarm> | null;
    if (!alarm || typeof alarm !== 'object' || typeof alarm.message !== 'string') throw badRequest(`alarms[${i}].message`, 'a string');
    const severity = typeof alarm.severity === 'string' && SEVERITIES.has(alarm.severity) ? alarm.severity : 'WARNING';
    const read: BusinessAlarm = { severity, message: alarm.message, data: alarm.data, at: isInstant(alarm.at) ? alarm.at : now };
    // An id that is not one (wrong type or shape) is dropped: the engine makes its own.
    if (typeof alarm.id === 'string' && ALARM_ID_PATTERN.test(alarm.id)) read.id = alarm.id;
    return read;
  });
}
