import type { RunCause } from '@baton/domain';
import { RunEntity } from '../../entities';

/** What a run made now through the console carries; every other column starts at its default. */
export interface NewRunValues {
  tenantId: string;
  taskId: number;
  engineGroup: string;
  priority: number;
  /** Parsed (the entity's JSON column), as the ORM reads it back. */
  params: RunEntity['params'];
  flowParams: string | null;
  fireKey: string;
  cause: RunCause;
  traceParent: string | null;
  now: number;
}

/**
 * The row of a run made now — PENDING, due now, its own flow's root (flow_id null), attempt 1 —
 * with every column named, nulls included, so that a caller can answer with it as the database
 * holds it without reading it back. A mapped type, not `Partial`: a column added to RunEntity
 * fails to compile here. insert-submitted-runs.spec.ts compares it with the row read back.
 */
export function newRunRow(values: NewRunValues): Omit<RunEntity, 'id'> {
  const { now } = values;
  const row: { [K in Exclude<keyof RunEntity, 'id'>]: RunEntity[K] } = {
    tenantId: values.tenantId,
    taskId: values.taskId,
    engineGroup: values.engineGroup,
    state: 'PENDING',
    cause: values.cause,
    fireKey: values.fireKey,
    flowId: null,
    parentRunId: null,
    attempt: 1,
    priority: values.priority,
    params: values.params,
    scheduledAt: now,
    dueAt: now,
    instantAt: null,
    lateFromAt: null,
    claimedBy: null,
    leaseUntil: null,
    executorId: null,
    dispatchedAt: null,
    firstDispatchedAt: null,
    handBacks: 0,
    acceptedAt: null,
    startedAt: null,
    finishedAt: null,
    finishedClock: null,
    withdrawal: null,
    result: null,
    error: null,
    flowParams: values.flowParams,
    parentResults: null,
    shardIndex: null,
    shardTotal: null,
    pinnedExecutorId: null,
    progress: null,
    deadlineAt: null,
    lateAlarmedAt: null,
    traceParent: values.traceParent,
    runKey: null,
    keyScope: null,
    windowUntil: null,
    createdAt: now,
    updatedAt: now,
  };
  return row;
}
