import type { ExecutorState, JsonValue, RunCause, RunState } from '@baton/domain/types';

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
  acceptedAt: number | null;
  startedAt: number | null;
  finishedAt: number | null;
  error: string | null;
  progress: number | null;
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
}
