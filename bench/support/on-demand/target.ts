import type { HandlerStart } from '../peers/start-figures';
import type { SqlTiming } from '../sql-timing';

/**
 * A system the on-demand benchmark submits work to (Baton through its REST API, BullMQ,
 * graphile-worker): running, warmed up, its workers recording each handler start with the
 * submission's key. The load generator (bench/support/on-demand/open-loop.ts) knows nothing else.
 */

/** What became of one submission. */
export interface Outcome {
  /** The system took it (Baton: a 2xx answer; peers: the add promise resolved). */
  ok: boolean;
  /** Why not: `HTTP 503 …`, an error's message, or UNANSWERED. */
  error?: string;
}

/** The outcome of a submission whose answer never came (the client gave up at the end of the drain). */
export const UNANSWERED = 'unanswered';

/** What `--kill` kills. */
export type KillTarget = 'engine' | 'console';

/** One unit of on-demand work: a key the handler records, and which of the tasks (Baton) or job names it belongs to. */
export interface WorkItem {
  key: string;
  task: number;
}

export interface OnDemandTarget {
  system: string;
  /** Versions, durability and settings, for the result file and the table's notes. */
  settings: Record<string, unknown>;
  /** The processes whose CPU is metered (each with its descendants), by name. */
  pids: Record<string, number | null>;
  /** One submission, as a user's code would send it; never rejects. */
  submit(item: WorkItem): Promise<Outcome>;
  /** Many in one call, or null when the system has no such API (then its batched series is not run). */
  submitBatch: ((items: readonly WorkItem[]) => Promise<Outcome[]>) | null;
  /**
   * Single submissions through the system's own client library when it sends them otherwise than
   * `submit` does (Baton: BatonClient.submit, which sends the runs submitted meanwhile together);
   * absent when `submit` already is the client's way (the peers' add).
   */
  submitViaClient?: (item: WorkItem) => Promise<Outcome>;
  /**
   * Events instead of runs (Baton: `POST /api/events`, one event a call, or `{ events }` when
   * several), each starting one run of its task through the task's EVENT trigger; absent: the
   * system has no events (its events series are not run).
   */
  emitEvents?: (items: readonly WorkItem[]) => Promise<Outcome[]>;
  /** One event through the system's client library, which may send it together with others (Baton: BatonClient.emit). */
  emitViaClient?: (item: WorkItem) => Promise<Outcome>;
  /** Why `submitBatch` is null, for the printed table. */
  noBatchReason?: string;
  /** Handler starts recorded since the last call, keyed by the submission's key. */
  newStarts(): Promise<HandlerStart[]>;
  /**
   * Where a step's time went, when the system can say: stage name → ms per submission (Baton:
   * the wait for a free connection, the request's time on it, the run row's created_at — the
   * console's clock in the trigger's transaction, before its insert and commit — its first
   * dispatch, the handler's start).
   */
  stages?(sends: ReadonlyArray<{ key: string; sentAt: number; answeredAt: number | null; startedAt: number | undefined }>): Promise<Record<string, number[]>>;
  /**
   * `--sql-timing`: each process's statements so far by digest, with their round trips (Baton's
   * console and engines, bench/support/sql-timing.cjs), for where a run's database time goes.
   */
  sqlTiming?(): Promise<Record<string, SqlTiming>>;
  /** The store's statement counters so far (Baton: MariaDB's SHOW GLOBAL STATUS), for statements per run. */
  storeCounters?(): Promise<Record<string, number>>;
  /**
   * `--kill`: kills one of its processes with SIGKILL mid-step (Baton: an engine, left dead; or
   * the console, started again on its port), and says what it did. Absent: the system has no such fault.
   */
  kill?(what: KillTarget): Promise<string>;
  /**
   * `--profile`: starts the V8 CPU profilers its processes were started with
   * (bench/support/cpu-profile.cjs; each writes its profile when stopped). Absent: not profiled.
   */
  startProfiling?(): void;
  /** Gives up on submissions still unanswered (their outcome becomes UNANSWERED). */
  abandonPending(): void;
  close(): Promise<void>;
}
