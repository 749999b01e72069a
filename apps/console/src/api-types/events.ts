import type { JsonValue } from '@baton/domain/types';
import type { ErrorBody } from '@baton/protocol/error-body';
import type { Run } from './runs';

/** An event as stored: what was sent, when it arrived, and the ids of the runs it started. */
export interface TenantEvent {
  id: number;
  name: string;
  payload: { [key: string]: JsonValue };
  idempotencyKey: string | null;
  receivedAt: number;
  /** The runs it started ([] when it matched no task); a run purged since is still named here. */
  runIds: number[];
}

/** An event with the runs it started that are still kept (GET /api/events/:id). */
export interface TenantEventDetail extends TenantEvent {
  runs: Run[];
}

/** A run an event would have started but could not: its task, and why (its params against the handler's schema: 400; the task deleted meanwhile: 404). */
export interface RefusedEventRun {
  taskId: number;
  status: number;
  error: ErrorBody;
}

/** The answer to one event sent: the event (made now or, under its idempotency key, before) with its runs. */
export interface EmittedEvent extends TenantEventDetail {
  /** False: the idempotency key was used before; this is the first event sent under it. */
  created: boolean;
  refusedRuns: RefusedEventRun[];
}

export interface EmitResult {
  /** 201 stored now; 200 stored before under its idempotency key; 400 refused (errors name `events[i].field`). */
  status: number;
  event?: EmittedEvent;
  error?: ErrorBody;
}

export interface EmitBatch {
  results: EmitResult[];
  created: number;
  existing: number;
  refused: number;
}
