import type { ApprovalOutcome, ApproverRole, AttemptState, ExecutorState, JsonValue, RunCause, RunState, WithdrawalState } from '@baton/domain/types';
import type { TimelineEntry } from '@baton/domain/run/timeline';

export type { TimelineEntry };

export interface Run {
  id: number;
  taskId: number;
  /** Null when the task was deleted. */
  taskName: string | null;
  state: RunState;
  cause: RunCause;
  flowId: number | null;
  parentRunId: number | null;
  shardIndex: number | null;
  shardTotal: number | null;
  pinnedExecutorId: number | null;
  attempt: number;
  priority: number;
  scheduledAt: number;
  dueAt: number;
  executorId: number | null;
  dispatchedAt: number | null;
  /** A retried run: when its first attempt went out (the first not handed back). */
  firstDispatchedAt: number | null;
  /** The first attempt's lateness (dispatch − scheduled), as the statistics count it — an attempt handed back is not the run's start, the one sent after it is; null before dispatch and for BACKFILL runs. */
  latenessMs: number | null;
  acceptedAt: number | null;
  startedAt: number | null;
  finishedAt: number | null;
  error: string | null;
  progress: number | null;
  /**
   * A scheduled fire an edit, a pause, a calendar or a first dependency withdrew after an engine
   * may have sent it ahead to its executor: UNSETTLED while the engines wait for its executor to
   * say whether it started it (its instant is not planned again before), then NOT_STARTED (the
   * instant is planned again), STARTED (it ran as it was prepared) or UNKNOWN (no word by its
   * timeout: taken as run). Null for every other run.
   */
  withdrawal: WithdrawalState | null;
  createdAt: number;
  updatedAt: number;
}

/** A line of a run's log (GET /api/runs/{id}, and the live tail's `run:logs` events). */
export interface RunLog {
  id: number;
  attempt: number;
  at: number;
  level: string;
  message: string;
}

/** The executor a run went to. */
export interface RunExecutor {
  id: number;
  app: string;
  url: string;
  state: ExecutorState;
}

export interface RunDetail extends Run {
  params: JsonValue;
  result: JsonValue | null;
  errorDetail: string | null;
  logs: RunLog[];
  /** Null before dispatch or when the executor is gone. */
  executor: RunExecutor | null;
  /** The current attempt's timeline, in one fixed order, out-of-order reports flagged. */
  timeline: TimelineEntry[];
  /** Its OpenTelemetry trace id when it was made with tracing on; null otherwise. */
  traceId: string | null;
  /** Its trace in the operator's tracing UI (BATON_TRACE_URL_TEMPLATE); null without a template or a trace. */
  traceUrl: string | null;
  /** Its approval step (a run fired by an edge with one); null: it never waited for a person. */
  approval: RunApproval | null;
}

/** A run's approval step: who may decide, until when, and the decision once made. */
export interface RunApproval {
  runId: number;
  /** Users of at least this role may decide; null: only `users`. */
  role: ApproverRole | null;
  /** Usernames (or `api-key:<name>`) that may decide. */
  users: string[];
  /** When the deadline decides `onTimeout`, epoch ms. */
  deadlineAt: number;
  onTimeout: ApprovalOutcome;
  /** Null while it waits. */
  decision: ApprovalOutcome | null;
  /** Who decided; null when the deadline did (or nobody yet). */
  decidedBy: string | null;
  decidedAt: number | null;
  comment: string | null;
  /** Whether the caller may decide on it now (it waits, and the gate admits the caller). */
  mayDecide: boolean;
}

/** One id's outcome in a bulk cancel / re-run of the runs list. */
export interface BulkRunResult {
  id: number;
  /** What the single action would have answered: 200 cancelled, 201 run again, 404, 409. */
  status: number;
  /** Cancel: the run; re-run: the new run; null when refused. */
  runId: number | null;
  message: string | null;
}

export interface BulkRunResults {
  results: BulkRunResult[];
}

/** GET /api/runs/search: a slice of the range searched, newest first. */
export interface RunSearchPage {
  items: Run[];
  nextCursor: string | null;
  /** The runs scheduled from here up to `to` have been examined. */
  searchedFrom: number;
}

/** One attempt of a run (GET /api/runs/{id}/attempts). */
export interface RunAttempt {
  attempt: number;
  latest: boolean;
  /** Latest: the run's state; earlier: how the attempt ended (FAILED, TIMED_OUT, HANDED_BACK: sent ahead and never started by its executor). */
  state: AttemptState | null;
  executorId: number | null;
  dueAt: number | null;
  error: string | null;
  timeline: TimelineEntry[];
  logs: RunLog[];
}

export interface RunAttempts {
  items: RunAttempt[];
}
