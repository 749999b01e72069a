import type { AbortAck, DispatchAck, DispatchBatchReply, DispatchRefusal, RunStatusReport } from '@baton/protocol';

/** A request to the executor, framework-neutral. `path` is the protocol path (no base path, no query). */
export interface ExecutorRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The raw body exactly as received (the signature covers it). */
  body: string;
  /**
   * When the request arrived (epoch ms, this machine's clock): a run sent ahead of its instant
   * (`startInMs`) is held until then + startInMs, and a run's deadline is then + `deadlineInMs`.
   * Default: when handle() is called — later by the body's read, so the start and the deadline
   * are later by as much; serveNode passes the first moment it has.
   */
  arrivedAt?: number;
}

/** The executor's answer: an HTTP status and a JSON body. */
export interface ExecutorResponse {
  status: number;
  body: DispatchAck | DispatchRefusal | DispatchBatchReply | AbortAck | RunStatusReport | ExecutorHealth;
}

/** Body of the unsigned `GET /baton/health` (for load balancers and probes; no run data). */
export interface ExecutorHealth {
  status: 'STARTING' | 'UP' | 'DRAINING' | 'STOPPED';
  capacity: number;
  inFlight: number;
}

/** A snapshot of the executor's load (what heartbeats report, and a bit more). */
export interface ExecutorStats {
  phase: 'new' | 'starting' | 'running' | 'draining' | 'stopped';
  executorId?: number;
  url?: string;
  capacity: number;
  running: number;
  queued: number;
  /** Handlers that did not stop after an abort and still hold a pool slot. */
  abandoned: number;
  /** Final callbacks not yet acknowledged by an engine. */
  pendingCallbacks: number;
  spoolFile: string | null;
}
