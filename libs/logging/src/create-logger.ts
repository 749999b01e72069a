import { isatty } from 'node:tty';
import pino, { type DestinationStream, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';
import { redact } from '@baton/domain';
import { traceLogFields } from '@baton/tracing';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** A Baton process's logger: pino, with the base fields `process` and `nodeId`. */
export type BatonLogger = Logger;

export interface BatonLoggerOptions {
  /** `process` field of every line: `embedded`, `console`, `engine`, `executor`. */
  process: string;
  /** `nodeId` field of every line: the engine node (or console instance) id. Default none. */
  nodeId?: string;
  /** Least severe level written (`BATON_LOG_LEVEL`). Default `info`. */
  level?: LogLevel;
  /** File descriptor written to: 1 (stdout, default) or 2 (stderr: the demo executor keeps stdout for `READY`). */
  fd?: 1 | 2;
  /** Human-readable lines instead of JSON. Default: when `fd` is a terminal. */
  pretty?: boolean;
  /** Where the lines go instead of `fd` (tests). */
  destination?: DestinationStream;
}

/**
 * JSON lines (one object a line: time, level, msg, process, nodeId, and the fields of the call
 * such as tenantId/runId; trace_id/span_id inside a traced run's span) for log collectors; on a terminal the same lines pretty-printed.
 * A field named as a secret (redact's names, @baton/domain: `password`, `authorization`, `apiToken`, …)
 * is written as `[redacted]` at any depth, by the rule the audit log and the console's views follow.
 * Writes are synchronous so they interleave in order with the `… READY` lines on stdout.
 */
export function createLogger(options: BatonLoggerOptions): BatonLogger {
  const fd = options.fd ?? 1;
  const pretty = options.pretty ?? (options.destination === undefined && isatty(fd));
  const destination =
    options.destination ??
    (pretty
      ? pinoPretty({ destination: fd, sync: true, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,process,nodeId,context', messageFormat: '{if context}{context}: {end}{msg}' })
      : pino.destination({ fd, sync: true }));
  return pino(
    {
      level: options.level ?? 'info',
      base: { process: options.process, ...(options.nodeId ? { nodeId: options.nodeId } : {}) },
      timestamp: pino.stdTimeFunctions.isoTime,
      // The fields of a call (and of the mixin) pass the one redaction rule; the message text is the caller's to keep clean.
      formatters: { level: (label) => ({ level: label }), log: (fields) => redact(fields) as Record<string, unknown> },
      // A line written inside a run's span (tracing on) carries its trace_id and span_id.
      mixin: traceLogFields,
    },
    destination,
  );
}
