import { EventEmitter } from 'node:events';
import type { AbortReason, RunCallback } from '@baton/protocol';

/** Identifies one attempt of a run in an event. */
export interface RunEventKey {
  runId: number;
  attempt: number;
}

/** The events of an executor (`runtime.events.on(name, listener)`); each listener gets one object. */
export interface ExecutorEvents {
  /** The plain HTTP server listens; `url` is its bound (or public) URL. */
  listening: { url: string };
  /** An engine acknowledged a heartbeat (the first one registers the executor). */
  heartbeat: { engineUrl: string; executorId: number; intervalMs: number };
  /** A heartbeat round failed on every engine URL; the next round comes after the interval. */
  heartbeatFailed: { error: string };
  /**
   * A dispatch was accepted (202); `duplicate` when the attempt was already known and is not run
   * again; `queued` when it did not start at once (no worker free, or sent ahead of its instant).
   */
  accepted: RunEventKey & { handler: string; duplicate: boolean; queued: boolean };
  /** A request from an engine was refused (4xx/5xx), e.g. bad signature, busy, unknown handler. */
  refused: { method: string; path: string; status: number; reason: string; message: string };
  /** A handler started. */
  started: RunEventKey & { handler: string };
  /** An attempt ended; its final callback is spooled and on its way. */
  finished: RunEventKey & { handler: string; outcome: NonNullable<RunCallback['outcome']>; durationMs: number; error?: string; abortReason?: AbortReason };
  /** An abort was requested (by an engine, the deadline, or shutdown). */
  aborting: RunEventKey & { reason: AbortReason };
  /** A final callback was acknowledged (200, or 409 = the engine already had it). */
  callbackDelivered: RunEventKey & { engineUrl: string; status: number; tries: number };
  /** A final callback round failed on every engine URL; it is retried after `delayMs`. */
  callbackRetry: RunEventKey & { tries: number; delayMs: number; error: string };
  /** An engine refused a final callback as malformed (400/413/422): it is dropped, not retried. */
  callbackDropped: RunEventKey & { engineUrl: string; status: number; message: string };
  /** On start, this many undelivered callbacks were read back from the spool. */
  replayed: { count: number; spoolFile: string };
  /** `stop()` began: dispatches now get 503. */
  draining: Record<string, never>;
  /** `stop()` finished; `undelivered` callbacks stay in the spool for the next start. */
  stopped: { undelivered: number };
}

export type ExecutorEventName = keyof ExecutorEvents;

/** A Node EventEmitter typed with ExecutorEvents. */
export class ExecutorEventEmitter extends EventEmitter {
  override on<K extends ExecutorEventName>(event: K, listener: (payload: ExecutorEvents[K]) => void): this {
    return super.on(event, listener);
  }

  override once<K extends ExecutorEventName>(event: K, listener: (payload: ExecutorEvents[K]) => void): this {
    return super.once(event, listener);
  }

  override off<K extends ExecutorEventName>(event: K, listener: (payload: ExecutorEvents[K]) => void): this {
    return super.off(event, listener);
  }

  override emit<K extends ExecutorEventName>(event: K, payload: ExecutorEvents[K]): boolean {
    return super.emit(event, payload);
  }

  /** Whether `event` has a listener: the events of every run need no payload built otherwise. */
  listens(event: ExecutorEventName): boolean {
    return this.listenerCount(event) > 0;
  }
}
