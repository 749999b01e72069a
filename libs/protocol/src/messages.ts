/**
 * The engine ⇄ executor wire protocol (documented for other languages in openapi.yaml).
 *
 * Engine → executor:
 *   POST {executorUrl}/baton/runs             DispatchRequest  → 202 DispatchAck | 429 busy | 4xx rejected
 *   POST {executorUrl}/baton/runs/{id}/abort  AbortRequest     → 202 | 404 (not running there)
 * Executor → engine (any engine node; all are equivalent):
 *   POST {engineUrl}/baton/callbacks          RunCallback      → 200 | 401 bad signature | 409 stale
 *   POST {engineUrl}/baton/executors/heartbeat ExecutorHeartbeat → 200 ExecutorHeartbeatAck
 * Every request body is signed (see signing.ts).
 */
import type { JsonValue } from '@baton/domain';

export const PROTOCOL_VERSION = 1;

export const PATHS = {
  dispatch: '/baton/runs',
  abort: (runId: number) => `/baton/runs/${runId}/abort`,
  callback: '/baton/callbacks',
  heartbeat: '/baton/executors/heartbeat',
} as const;

/** Asks an executor to start one attempt of a run. */
export interface DispatchRequest {
  runId: number;
  attempt: number;
  tenantId: string;
  taskId: number;
  taskName: string;
  handler: string;
  params: JsonValue;
  /** Nominal fire time (epoch ms). */
  scheduledAt: number;
  /** The handler must be done by then (epoch ms); the engine aborts the run after it. */
  deadline: number;
  /** Engine callback base URLs, first preferred; any of them accepts the callback. */
  callbackUrls: string[];
}

/** 202: the work is on the executor's pool. */
export interface DispatchAck {
  accepted: true;
  runId: number;
  attempt: number;
}

/** 429 (busy, try another executor) or 4xx (rejected: unknown handler, bad request). */
export interface DispatchRefusal {
  accepted: false;
  reason: 'BUSY' | 'UNKNOWN_HANDLER' | 'BAD_REQUEST' | 'SHUTTING_DOWN';
  message: string;
}

export interface AbortRequest {
  runId: number;
  attempt: number;
  reason: 'TIMEOUT' | 'CANCELLED' | 'REPLACED';
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogLine {
  at: number;
  level: LogLevel;
  message: string;
}

/** An alarm raised by business code with `ctx.alarm(...)`; rides the callback to the engine. */
export interface BusinessAlarm {
  severity: 'INFO' | 'WARNING' | 'CRITICAL';
  message: string;
  data?: JsonValue;
  at: number;
}

/**
 * The end of an attempt (`outcome` set) or an interim report (`outcome` absent: progress,
 * log lines, alarms while running). Callbacks are retried until acknowledged, so engines
 * treat them idempotently: an outcome for a run that already ended changes nothing.
 */
export interface RunCallback {
  runId: number;
  attempt: number;
  tenantId: string;
  executorId?: number;
  outcome?: 'SUCCEEDED' | 'FAILED' | 'ABORTED';
  result?: JsonValue;
  error?: string;
  /** When the handler started / finished, executor clock (epoch ms). */
  startedAt?: number;
  finishedAt?: number;
  progress?: number;
  logs?: LogLine[];
  alarms?: BusinessAlarm[];
}

/** Registration and liveness of one executor process; sent at start and every few seconds. */
export interface ExecutorHeartbeat {
  tenantId: string;
  app: string;
  url: string;
  capacity: number;
  inFlight: number;
  handlers: string[];
}

export interface ExecutorHeartbeatAck {
  executorId: number;
  /** Send the next heartbeat within this (ms). */
  intervalMs: number;
}
